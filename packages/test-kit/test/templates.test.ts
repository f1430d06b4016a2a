// The PGlite template cache's bookkeeping: an entry is made once and reused, another key's entry stays while a run
// has used it within the hour and goes after, and an entry a crash left incomplete is made again. The makers here
// write a PG_VERSION file (what marks a finished data directory) instead of running initdb and the migrations,
// which are not what is under test.
import { existsSync } from 'node:fs';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../src/temp.js';
import { buildTemplates, type InitPglite, type MigrateDatabase } from '../src/templates.js';

let dir: string;
let made: string[];
const migrate: MigrateDatabase = async (target) => {
  if (!('dataDir' in target)) throw new Error('PGlite only here');
  made.push('migrated');
  await writeFile(join(target.dataDir, 'PG_VERSION'), '17\n');
};
const initPglite: InitPglite = async (dataDir) => {
  made.push('blank');
  await writeFile(join(dataDir, 'PG_VERSION'), '17\n');
};
const build = (key: string) => buildTemplates(migrate, initPglite, { postgres: false, cache: { dir, key } });
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);

beforeEach(async () => {
  dir = await tempDir('expense-template-cache-test-');
  made = [];
});
afterEach(async () => removeDir(dir));

describe('the PGlite template cache', () => {
  it('makes the templates once and names them to the run; the next run of the same key reuses them', async () => {
    const first = await build('k1');
    expect(made.sort()).toEqual(['blank', 'migrated']);
    expect(Object.values(first.env).every((path) => existsSync(join(path, 'PG_VERSION')))).toBe(true);
    const second = await build('k1');
    expect(made).toHaveLength(2);
    expect(second.env).toEqual(first.env);
    await second.remove();
    expect(Object.values(first.env).every((path) => existsSync(path))).toBe(true);
  });

  it("keeps another key's entry a run used within the hour, and removes one unused for longer", async () => {
    await build('used');
    await build('unused');
    await utimes(join(dir, 'unused'), hoursAgo(2), hoursAgo(2));
    // made two hours ago, used by a run that started a minute ago
    await utimes(join(dir, 'used'), hoursAgo(2), hoursAgo(2));
    await build('used');
    await build('current');
    expect(existsSync(join(dir, 'used'))).toBe(true);
    expect(existsSync(join(dir, 'unused'))).toBe(false);
  });

  it('makes again an entry that a crash left without PG_VERSION', async () => {
    await mkdir(join(dir, 'k1', 'migrated'), { recursive: true });
    await writeFile(join(dir, 'k1', 'migrated', 'half-written'), '');
    const { env } = await build('k1');
    const migrated = Object.values(env).find((path) => path.endsWith('migrated')) as string;
    expect(await readFile(join(migrated, 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect(existsSync(join(migrated, 'half-written'))).toBe(false);
    expect(made.sort()).toEqual(['blank', 'migrated']);
  });
});
