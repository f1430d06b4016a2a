// A process that takes in-flight leases in Redis and never gives them back (the test kills it).
//   node --conditions=@expense/source --import tsx test/fairness/lease-holder.ts <prefix> <userId> <connectionId> <n> <leaseTtlMs>
import { InflightLimiter } from '../index.js';

const [prefix, userId, connectionId, n, leaseTtlMs] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
];
const limiter = new InflightLimiter({
  perKey: 2,
  perUser: 4,
  redisUrl: 'redis://127.0.0.1:6379',
  redisKeyPrefix: prefix,
  leaseTtlMs: Number(leaseTtlMs),
  onRedisError: (error) => console.error(error),
});
for (let i = 0; i < Number(n); i++) await limiter.admit({ userId, connectionId });
console.log('held');
setInterval(() => {}, 60_000);
