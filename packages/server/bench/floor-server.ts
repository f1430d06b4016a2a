// The floor of the SQL benchmark: a bare Fastify + pg endpoint that runs the benchmark's SELECT for one
// workspace in one round trip: no auth, no guard, no caps, no row-level security context, no envelope
// checks. Started as its own process by sql-throughput.ts; prints "floor: serving http://127.0.0.1:<port>".
import Fastify from 'fastify';
import pg from 'pg';
import { workloadNamed } from './workload.js';

const databaseUrl = process.env.FLOOR_DATABASE_URL;
const workspaceId = process.env.FLOOR_WORKSPACE_ID;
if (!databaseUrl || !workspaceId) throw new Error('FLOOR_DATABASE_URL and FLOOR_WORKSPACE_ID are required');
const { floorSql } = workloadNamed(process.env.FLOOR_WORKLOAD ?? 'latest');

// The same pool size as the server's PostgreSQL engine (10).
const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
const app = Fastify({ logger: false });
app.post('/floor/query', async () => {
  const result = await pool.query(floorSql, [workspaceId]);
  return { ok: true, data: { rows: result.rows, rowCount: result.rowCount } };
});
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
const port = address && typeof address === 'object' ? address.port : 0;
process.stdout.write(`floor: serving http://127.0.0.1:${port}\n`);
const stop = () =>
  app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
