import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuard, introspectDialect, verifyDialect } from '../../src/index.js';
import type { Dialect, SqlSession } from '../../src/types.js';
import { blankPglite, type Engine, type EngineName, engineNames, openEngine } from '../run/engines.js';
import { recording, runError } from '../run/helpers.js';

/**
 * The dialect read from the database, verified against it, and `run` refusing a dialect that drifted (issue 25: a
 * dialect column the table lacked, `to_json`, let `o.to_json` through and PostgreSQL returned whole rows; issue
 * 21: `*` expanded in the dialect's order, not the table's).
 */
const schema = `
CREATE TABLE customers (id integer PRIMARY KEY, tenant text NOT NULL, name text NOT NULL);
CREATE TABLE orders (id integer PRIMARY KEY, customer_id integer NOT NULL, total numeric NOT NULL, note text);
CREATE VIEW order_totals AS SELECT customer_id, sum(total) AS total FROM orders GROUP BY customer_id;
INSERT INTO customers VALUES (1, 'a', 'Ada'), (2, 'b', 'Bob');
INSERT INTO orders VALUES (1, 1, 10.5, 'first'), (2, 2, 20, NULL);
`;
const options = { functions: ['count', 'sum'], castTypes: ['text', 'integer', 'numeric'] };

describe.each(engineNames)('the dialect and the database on %s', (name: EngineName) => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openEngine(name);
    await engine.exec(schema);
  }, 120_000);
  afterAll(() => engine?.close());

  const inRollback = <T>(fn: (session: SqlSession) => Promise<T>) =>
    engine.transaction(fn, { rollback: true });

  it('introspects relations, columns in table order and the operations held', async () => {
    const dialect = await inRollback((s) => introspectDialect(s, options));
    expect(dialect).toEqual({
      relations: {
        customers: {
          operations: ['select', 'insert', 'update', 'delete'],
          columns: ['id', 'tenant', 'name'],
        },
        order_totals: {
          operations: ['select', 'insert', 'update', 'delete'],
          columns: ['customer_id', 'total'],
        },
        orders: {
          operations: ['select', 'insert', 'update', 'delete'],
          columns: ['id', 'customer_id', 'total', 'note'],
        },
      },
      ...options,
    });
    const chosen = await inRollback((s) =>
      introspectDialect(s, { ...options, relations: { orders: ['select'] } }),
    );
    expect(chosen.relations).toEqual({
      orders: { operations: ['select'], columns: ['id', 'customer_id', 'total', 'note'] },
    });
    await expect(
      inRollback((s) => introspectDialect(s, { ...options, relations: ['nope'] })),
    ).rejects.toThrow(/relation public.nope does not exist/);
  });

  it('reads another schema; its relations verify once that schema is on the search_path', async () => {
    await inRollback(async (s) => {
      await s.query('CREATE SCHEMA shop');
      await s.query('CREATE TABLE shop.things (label text, id integer, weight numeric)');
      const dialect = await introspectDialect(s, { ...options, schema: 'shop' });
      expect(dialect.relations).toEqual({
        things: { operations: ['select', 'insert', 'update', 'delete'], columns: ['label', 'id', 'weight'] },
      });
      expect((await verifyDialect(s, dialect)).map((d) => d.kind)).toEqual(['missing_relation']);
      await s.query('SET LOCAL search_path = shop, public');
      expect(await verifyDialect(s, dialect)).toEqual([]);
    });
  });

  it('verifies: [] when equal, every difference otherwise', async () => {
    const dialect = await inRollback((s) => introspectDialect(s, options));
    expect(await inRollback((s) => verifyDialect(s, dialect))).toEqual([]);
    const drifted: Dialect = {
      ...dialect,
      relations: {
        customers: { operations: ['select'], columns: ['id', 'name', 'tenant'] },
        orders: { operations: ['select'], columns: ['id', 'customer_id', 'total', 'to_json'] },
        invoices: { operations: ['select'], columns: ['id'] },
      },
    };
    const differences = await inRollback((s) => verifyDialect(s, drifted));
    expect(differences.map(({ kind, relation, column }) => ({ kind, relation, column }))).toEqual([
      { kind: 'column_order', relation: 'customers', column: undefined },
      { kind: 'missing_column', relation: 'orders', column: 'to_json' },
      { kind: 'extra_column', relation: 'orders', column: 'note' },
      { kind: 'missing_relation', relation: 'invoices', column: undefined },
    ]);
    for (const d of differences) expect(d.message).toContain(d.relation);
  });

  it('refuses to run on a drifted dialect before anything runs (the o.to_json hole)', async () => {
    const dialect = await inRollback((s) => introspectDialect(s, options));
    const drifted: Dialect = {
      ...dialect,
      relations: {
        ...dialect.relations,
        orders: { operations: ['select'], columns: ['id', 'customer_id', 'total', 'to_json'] },
      },
    };
    const guard = await createGuard({ dialect: drifted });
    expect(guard.check('SELECT o.to_json FROM orders o', { mode: 'query' }).ok).toBe(true);
    const error = await runError(
      inRollback((s) => {
        const { session, sent } = recording(s);
        return guard.run(session, 'SELECT o.to_json FROM orders o', { mode: 'query' }).finally(() => {
          expect(sent).toEqual([]);
        });
      }),
    );
    expect(error.code).toBe('dialect_drift');
    expect(error.message).toContain('orders.to_json');
    expect(error.details.differences?.map((d) => d.kind)).toEqual(['missing_column', 'extra_column']);
  });

  it('refuses columns in another order than the table’s: * expands in table order', async () => {
    const dialect = await inRollback((s) => introspectDialect(s, options));
    const reordered: Dialect = {
      ...dialect,
      relations: {
        ...dialect.relations,
        customers: { operations: ['select'], columns: ['tenant', 'id', 'name'] },
      },
    };
    const guard = await createGuard({ dialect: reordered });
    // The guard's model of c(x, y) is (x=tenant, y=id, name); PostgreSQL's is (x=id, y=tenant, name).
    const sql = 'WITH c(x, y) AS (SELECT * FROM customers) SELECT c.name FROM c';
    const error = await runError(
      inRollback((s) => {
        const { session, sent } = recording(s);
        return guard.run(session, sql, { mode: 'query' }).finally(() => expect(sent).toEqual([]));
      }),
    );
    expect(error.code).toBe('dialect_drift');
    expect(error.details.differences?.[0]).toMatchObject({ kind: 'column_order', relation: 'customers' });
  });

  it('verifies once per database connection: as many verifications as connections used', async () => {
    const dialect = await inRollback((s) => introspectDialect(s, options));
    const guard = await createGuard({ dialect });
    const connections = new Set<unknown>();
    let verifications = 0;
    for (let i = 0; i < 6; i++) {
      await inRollback((s) => {
        connections.add(s.database ?? s);
        const { session, verified } = recording(s);
        return guard
          .run(session, 'SELECT count(*) AS n FROM orders', { mode: 'query' })
          .finally(() => (verifications += verified.length));
      });
    }
    expect(connections.size).toBeGreaterThanOrEqual(1);
    expect(connections.size).toBeLessThan(6);
    expect(verifications).toBe(connections.size);
  });

  it('a refusal is not kept: each run asks again, and runs once the database matches', async () => {
    const dialect = await inRollback((s) => introspectDialect(s, options));
    const ahead: Dialect = {
      ...dialect,
      relations: {
        ...dialect.relations,
        orders: {
          operations: ['select'],
          columns: [...(dialect.relations.orders?.columns ?? []), 'channel'],
        },
      },
    };
    const guard = await createGuard({ dialect: ahead });
    const sql = 'SELECT count(*) AS n FROM orders';
    await inRollback(async (s) => {
      const { session, verified } = recording(s);
      for (let i = 0; i < 2; i++) {
        const error = await runError(guard.run(session, sql, { mode: 'query' }));
        expect(error.code).toBe('dialect_drift');
        expect(error.message).toContain('orders.channel');
      }
      expect(verified).toHaveLength(2);
      await s.query('ALTER TABLE orders ADD COLUMN channel text');
      const result = await guard.run(session, sql, { mode: 'query' });
      expect(result.statements[0]?.rows).toEqual([{ n: '2' }]);
      expect(verified).toHaveLength(3);
      await guard.run(session, sql, { mode: 'query' });
      expect(verified).toHaveLength(3);
    });
  });
});

describe('introspectDialect and verifyDialect on the drivers themselves', () => {
  it('take a PGlite instance (values parsed by the driver)', async () => {
    const { db, close } = await blankPglite();
    try {
      await db.exec(schema);
      const dialect = await introspectDialect(db, { ...options, relations: ['orders'] });
      expect(dialect.relations.orders?.columns).toEqual(['id', 'customer_id', 'total', 'note']);
      expect(await verifyDialect(db, dialect)).toEqual([]);
      await db.exec('ALTER TABLE orders DROP COLUMN note');
      expect((await verifyDialect(db, dialect)).map((d) => d.kind)).toEqual(['missing_column']);
    } finally {
      await close();
    }
  });
});
