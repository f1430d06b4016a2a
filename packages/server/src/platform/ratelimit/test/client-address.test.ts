import { describe, expect, it } from 'vitest';
import { clientBucket } from '../client-address.js';

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
