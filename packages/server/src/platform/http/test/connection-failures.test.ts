import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConnectionFailure } from '../../storage/connection-failure.js';
import { openPostgres } from '../../storage/postgres.js';
import { ActionBuilder } from '../actions.js';
import { httpBasics } from '../http-basics.js';

const ADMIN_URL = process.env.EXPENSE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

// SQLSTATEs of a lost connection or server (PostgreSQL's class 08, admin/crash/cannot-connect-now shutdowns,
// too many connections). 57P02 is what every other backend answers when one crashed and the server restarts.
const CONNECTION_STATES = ['08006', '57P01', '57P02', '57P03', '53300'];

describe('connection failures (real PostgreSQL errors)', () => {
  let client: pg.Client;
  let app: FastifyInstance;

  /** PostgreSQL itself raises the SQLSTATE, so the error is the driver's own DatabaseError. */
  const raised = async (sqlstate: string): Promise<Error> => {
    const error = await client
      .query(`DO $$ BEGIN RAISE EXCEPTION 'raised for a test' USING ERRCODE = '${sqlstate}'; END $$`)
      .then(
        () => undefined,
        (e: unknown) => e as Error,
      );
    if (!error) throw new Error(`${sqlstate} was not raised`);
    return error;
  };

  beforeAll(async () => {
    client = new pg.Client({ connectionString: ADMIN_URL });
    await client.connect();
    app = Fastify({ logger: false });
    await app.register(httpBasics, {
      actions: new ActionBuilder({ publicUrl: 'http://x', authUrl: 'http://x' }),
    });
    // An error escaping a route unwrapped (not through the Database), as a driver raises it.
    app.get<{ Params: { sqlstate: string } }>('/raise/:sqlstate', async (request) => {
      throw await raised(request.params.sqlstate);
    });
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await client?.end();
  });

  it.each(CONNECTION_STATES)(
    '%s is a connection failure, answered 503 database_unavailable',
    async (state) => {
      const error = await raised(state);
      expect((error as { code?: string }).code).toBe(state);
      expect(isConnectionFailure(error)).toBe(true);
      const res = await app.inject({ method: 'GET', url: `/raise/${state}` });
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toMatchObject({ code: 'database_unavailable', retryable: true });
    },
  );

  it('the PostgreSQL engine sees each of them as a lost connection', async () => {
    const engine = await openPostgres({
      connectionString: ADMIN_URL,
      maxConnections: 1,
      internalConnections: 1,
    });
    try {
      for (const state of CONNECTION_STATES)
        expect(engine.isConnectionError(await raised(state)), state).toBe(true);
      expect(engine.isConnectionError(await raised('22012'))).toBe(false);
    } finally {
      await engine.close();
    }
  });

  it('a statement the database refuses is not a connection failure', async () => {
    const error = await raised('22012');
    expect(isConnectionFailure(error)).toBe(false);
    const res = await app.inject({ method: 'GET', url: '/raise/22012' });
    expect(res.statusCode).toBe(500);
    expect(res.json().error.code).toBe('internal_error');
  });
});
