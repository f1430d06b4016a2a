// `memory://` from a migrated template (what the test runs use to skip initdb and the migrations): the database
// starts as a copy of the template, the template itself never changes, a template that lacks migrations gets
// them on open, and `migrate: false` still starts empty.
import { emptyPgliteDir, removeDir } from '@expense/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../database.js';
import { loadMigrations, migrate } from '../migrate.js';
import { openDatabase } from '../open.js';

const MARK = 'expense_internal.template_mark';
const files = loadMigrations();

async function versions(db: Database): Promise<number[]> {
  const { rows } = await db.query<{ version: number }>(
    'SELECT version FROM expense_internal.schema_migrations ORDER BY version',
  );
  return rows.map((row) => row.version);
}

async function hasMark(db: Database): Promise<boolean> {
  const { rows } = await db.query<{ mark: string | null }>(`SELECT to_regclass('${MARK}')::text AS mark`);
  return rows[0]?.mark != null;
}

async function marks(db: Database): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${MARK}`);
  return rows[0]?.n ?? -1;
}

describe('memory:// started from a template data directory (PGlite)', () => {
  let template: string;
  const open: Database[] = [];

  beforeAll(async () => {
    // A template that lacks the last migration and holds a mark the copies must show.
    template = await emptyPgliteDir('expense-template-test-');
    const db = await openDatabase({ dataDir: template, migrate: false });
    try {
      await migrate(db, { migrations: files.slice(0, -1) });
      await db.query(`CREATE TABLE ${MARK} (id int)`);
    } finally {
      await db.close();
    }
  });

  afterAll(async () => {
    for (const db of open) await db.close().catch(() => {});
    await removeDir(template);
  });

  it('starts as a copy of the template, applies what it lacks, and leaves the template unchanged', async () => {
    const db = await openDatabase({ databaseUrl: 'memory://', memoryTemplate: template });
    open.push(db);
    expect(await hasMark(db)).toBe(true);
    expect(await versions(db)).toEqual(files.map((m) => m.version));
    await db.query(`INSERT INTO ${MARK} VALUES (1)`);
    await db.close();

    // Another copy starts from the template again: without the first copy's row.
    const again = await openDatabase({ databaseUrl: 'memory://', memoryTemplate: template });
    open.push(again);
    expect(await marks(again)).toBe(0);
  });

  it('migrate: false ignores the template (an empty database, as without one)', async () => {
    const db = await openDatabase({ databaseUrl: 'memory://', memoryTemplate: template, migrate: false });
    open.push(db);
    expect(await hasMark(db)).toBe(false);
  });

  it('the template directory keeps its own files and only the migrations given', async () => {
    const db = await openDatabase({ dataDir: template, migrate: false });
    open.push(db);
    expect(await versions(db)).toEqual(files.slice(0, -1).map((m) => m.version));
    expect(await marks(db)).toBe(0);
  });
});
