import ipaddr from 'ipaddr.js';

/**
 * The bucket a client address is counted in by per-address limits: an IPv4 address itself (also written as
 * IPv4-mapped IPv6), and for IPv6 its /64 prefix — one subscriber or host usually holds a whole /64, so counting
 * single IPv6 addresses would give one client 2^64 budgets. Every spelling of an address (zeros, case, a zone,
 * an embedded IPv4 tail) gives the same bucket. Every per-client limit goes through here: the API's and the
 * console's send-code, unknown keys, OAuth client registration.
 */
export function clientBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const network = new ipaddr.IPv6([...(ip as ipaddr.IPv6).parts.slice(0, 4), 0, 0, 0, 0]);
  return `${network.toRFC5952String()}/64`;
}

/**
 * Whether an address is anything but public unicast (ipaddr.js's ranges: loopback, private, link-local, CGNAT,
 * unique-local, multicast, unspecified, reserved, NAT64, 6to4, Teredo, ...); an IPv4-mapped IPv6 address is
 * judged by its IPv4 address, and what is not an address counts as private.
 */
export function isPrivateAddress(address: string): boolean {
  return !ipaddr.isValid(address) || ipaddr.process(address).range() !== 'unicast';
}
