// Issue 40: backups of the embedded engine while it serves. A backup taken through the running server while 4
// writers write restores (into an empty directory, through `expense-server restore`) to a server that holds every
// write acknowledged before the backup began; restore refuses while a server runs on the target (its lock) and
// into a directory that is not empty. Scheduled backups rotate (EXPENSE_BACKUP_EVERY=1s, KEEP=2): asserted on the files.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { API_ROUTES } from '@expense/wire';
import { afterAll, describe, expect, it } from 'vitest';
import { SERVER_BIN_SOURCE, SERVER_DIR } from '../../../../bench/lib/paths.js';
import { openForSeeding, seed } from '../../../../bench/lib/seed.js';
import { startServerProcess } from '../../../../bench/lib/server-process.js';
import { eventScript, sqlRequest } from '../../../../test-faults/common.js';
import { durationMs } from '../../../platform/config/config.js';
import { backupFileName, rotateBackups, SERVER_STATE_FILE } from '../index.js';

const WRITERS = 4;

async function cli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--conditions=@expense/source', '--import', 'tsx', SERVER_BIN_SOURCE, ...args],
      { cwd: SERVER_DIR, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env } },
    );
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('backups of the embedded engine', () => {
  const root = mkdtempSync(join(tmpdir(), 'expense-backup-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('names sort by time; rotation keeps the newest; durations parse', async () => {
    expect(backupFileName(new Date('2026-05-01T09:30:00.123Z'))).toBe(
      'expense-backup-20260501T093000123Z.tar.gz',
    );
    expect(durationMs('30m')).toBe(1_800_000);
    expect(durationMs('24h')).toBe(86_400_000);
    expect(() => durationMs('soon')).toThrow(/duration/);
    const dir = join(root, 'rotate');
    const { writeAtomically } = await import('../files.js');
    const names = [1, 2, 3, 4].map((d) => backupFileName(new Date(Date.UTC(2026, 0, d))));
    for (const name of names.reverse()) await writeAtomically(join(dir, name), new Uint8Array([1]));
    await writeAtomically(join(dir, 'mine.tar.gz'), new Uint8Array([1]));
    expect(await rotateBackups(dir, 2)).toEqual(names.slice(2).reverse());
    expect(readdirSync(dir).sort()).toEqual([...names.slice(0, 2).reverse(), 'mine.tar.gz'].sort());
  });

  it('a backup taken while 4 writers write restores every write acknowledged before it began', {
    timeout: 480_000,
  }, async () => {
    const dataDir = join(root, 'data');
    const seeding = await openForSeeding({ dataDir });
    const keys = await seed(seeding, { users: WRITERS });
    await seeding.close();
    const server = await startServerProcess({
      build: 'source',
      startTimeoutMs: 180_000,
      env: { EXPENSE_DATA_DIR: dataDir, EXPENSE_RATE_PER_SECOND: '1000', EXPENSE_RATE_PER_DAY: '1000000' },
    });
    const file = join(root, 'manual.tar.gz');
    const acknowledged = new Set<string>();
    let before: string[] | undefined;
    let stop = false;
    let backedUp: Promise<{ code: number; out: string }> | undefined;
    try {
      expect(existsSync(join(dataDir, SERVER_STATE_FILE))).toBe(true);
      const writer = async (w: number) => {
        while (!stop) {
          const event = `backup-${randomUUID()}`;
          const res = await sqlRequest(
            server.origin,
            keys[w]!.apiKey,
            API_ROUTES.sqlScript,
            eventScript(event),
          );
          if (res.status === 200) acknowledged.add(event);
          else if (res.body?.error?.code !== 'deadline_exceeded')
            throw new Error(`a write failed: ${res.status} ${res.text}\n${server.output()}`);
          // After some writes, the backup begins while every writer keeps writing.
          if (acknowledged.size >= 12 && !backedUp) {
            before = [...acknowledged];
            backedUp = cli(['backup', file], { EXPENSE_DATA_DIR: dataDir }).finally(() => {
              stop = true;
            });
          }
        }
      };
      await Promise.all(keys.map((_, w) => writer(w)));
      const result = await backedUp!;
      expect(result.out).toMatch(/backup of the running server/);
      expect(result.code).toBe(0);
      expect(acknowledged.size).toBeGreaterThan(before!.length); // writes went on during the backup

      // Not while a server runs on the target, not into a directory that is not empty.
      const busy = await cli(['restore', file, '--replace'], { EXPENSE_DATA_DIR: dataDir });
      expect(busy.code).not.toBe(0);
      expect(busy.out).toMatch(/\(data_dir_in_use\)/);
      expect(busy.out).toContain(`pid ${server.pid}`);
    } finally {
      stop = true;
      await server.stop();
    }
    expect(existsSync(join(dataDir, SERVER_STATE_FILE))).toBe(false);
    const notEmpty = await cli(['restore', file], { EXPENSE_DATA_DIR: dataDir });
    expect(notEmpty.code).not.toBe(0);
    expect(notEmpty.out).toMatch(/not empty/);

    const restoredDir = join(root, 'restored');
    const restored = await cli(['restore', file], { EXPENSE_DATA_DIR: restoredDir });
    expect(restored.out).toMatch(/restored/);
    expect(restored.code).toBe(0);
    expect(existsSync(join(restoredDir, SERVER_STATE_FILE))).toBe(false);

    const again = await startServerProcess({
      build: 'source',
      startTimeoutMs: 180_000,
      env: { EXPENSE_DATA_DIR: restoredDir },
    });
    try {
      const res = await sqlRequest(
        again.origin,
        keys[0]!.apiKey,
        API_ROUTES.sqlQuery,
        "SELECT count(*) AS n FROM ledger_entries WHERE event_id LIKE 'backup-%'",
      );
      expect(res.status).toBe(200);
    } finally {
      await again.stop();
    }
    const db = await openForSeeding({ dataDir: restoredDir });
    try {
      const { rows } = await db.query<{ event_id: string; n: string }>(
        "SELECT event_id, count(*) AS n FROM public.ledger_entries WHERE event_id LIKE 'backup-%' GROUP BY event_id",
      );
      const stored = new Map(rows.map((r) => [r.event_id, Number(r.n)]));
      expect(before!.filter((e) => stored.get(e) !== 3)).toEqual([]);
      expect([...stored.values()].filter((n) => n !== 3)).toEqual([]); // whole transactions only
    } finally {
      await db.close();
    }
  });

  it('scheduled backups rotate, keeping the newest', { timeout: 300_000 }, async () => {
    const dataDir = join(root, 'scheduled-data');
    const backupDir = join(root, 'scheduled');
    const server = await startServerProcess({
      build: 'source',
      startTimeoutMs: 180_000,
      env: {
        EXPENSE_DATA_DIR: dataDir,
        EXPENSE_BACKUP_DIR: backupDir,
        EXPENSE_BACKUP_EVERY: '1s',
        EXPENSE_BACKUP_KEEP: '2',
      },
    });
    const seen = new Set<string>();
    try {
      while (seen.size < 4) {
        const names = existsSync(backupDir)
          ? readdirSync(backupDir).filter((n) => n.endsWith('.tar.gz'))
          : [];
        for (const name of names) seen.add(name);
        // The new backup is in place before the oldest goes (a failed backup never leaves fewer than `keep`):
        // between the two, keep + 1.
        expect(names.length).toBeLessThanOrEqual(3);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    } finally {
      await server.stop();
    }
    const left = readdirSync(backupDir)
      .filter((n) => n.endsWith('.tar.gz'))
      .sort();
    for (const name of left) seen.add(name); // one may have been written between the last look and the stop
    expect(seen.size).toBeGreaterThanOrEqual(4);
    expect(left).toHaveLength(2);
    expect(left).toEqual([...seen].sort().slice(-2));
  });
});
