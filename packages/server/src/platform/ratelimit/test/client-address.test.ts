import { describe, expect, it } from 'vitest';
import { clientBucket, isPrivateAddress } from '../client-address.js';

describe('client address buckets of per-address limits', () => {
  it('counts IPv4 addresses one by one, also IPv4-mapped', () => {
    expect(clientBucket('192.0.2.1')).toBe('192.0.2.1');
    expect(clientBucket('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientBucket('192.0.2.2')).not.toBe(clientBucket('192.0.2.1'));
  });

  it('counts an IPv6 address as its /64, whatever its spelling', () => {
    const bucket = clientBucket('2001:db8:1:2::1');
    expect(bucket).toBe('2001:db8:1:2::/64');
    for (const same of [
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0db8:0001:0002:0000:0000:0000:0009',
      '2001:DB8:1:2::abcd',
      '2001:db8:1:2::1%eth0',
      '2001:db8:1:2:0:0:192.0.2.1',
    ]) {
      expect(clientBucket(same), same).toBe(bucket);
    }
    expect(clientBucket('2001:db8:1:3::1')).not.toBe(bucket);
    expect(clientBucket('::1')).toBe('::/64');
    expect(clientBucket('2001:db8::')).toBe('2001:db8::/64');
  });
});

describe('private addresses (refused for client ID metadata documents)', () => {
  it('are every address but public unicast, an IPv4-mapped one judged by its IPv4 address', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '198.18.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fd00::1',
      'fe80::1%eth0',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::1',
      'not an address',
    ]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '::ffff:93.184.216.34', '2606:4700:4700::1111']) {
      expect(isPrivateAddress(a), a).toBe(false);
    }
  });
});
