import { isIPv4, isIPv6 } from 'node:net';

/**
 * The bucket a client address is counted in by per-address limits: an IPv4 address itself (also written as
 * IPv4-mapped IPv6), and for IPv6 its /64 prefix — one subscriber or host usually holds a whole /64, so counting
 * single IPv6 addresses would give one client 2^64 budgets.
 */
export function clientBucket(address: string): string {
  const ip = address.replace(/%.*$/, '');
  if (!isIPv6(ip)) return ip;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  const [head = '', tail] = ip.split('::');
  const groups = (part: string) => {
    if (part === '') return [];
    const out: string[] = [];
    for (const g of part.split(':')) {
      if (g.includes('.')) {
        // An IPv4 tail takes two groups; only the first four groups matter here.
        out.push('0', '0');
      } else out.push(g);
    }
    return out;
  };
  const h = groups(head);
  const all =
    tail === undefined ? h : [...h, ...Array(8 - h.length - groups(tail).length).fill('0'), ...groups(tail)];
  return `${all
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
