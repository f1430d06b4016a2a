import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * Every published package of the monorepo (packages/*, not private) ships its licence, readme and changelog, and its
 * `files` lists only what exists (issue 25: no LICENSE shipped; `files` listed a CHANGELOG that did not exist).
 * What npm would pack is asked of npm itself.
 */
const root = new URL('../../../../', import.meta.url).pathname;
const published = readdirSync(join(root, 'packages'))
  .map((dir) => join(root, 'packages', dir))
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => manifest.private !== true);

describe('published packages', () => {
  it('are the guard, the server, the CLI and the bank-file reader', () => {
    expect(published.map(({ manifest }) => manifest.name).sort()).toEqual([
      '@expense/cli',
      '@expense/import',
      '@expense/server',
      '@expense/sql-guard',
    ]);
  });

  describe.each(published.map(({ dir, manifest }) => [manifest.name as string, dir, manifest] as const))(
    '%s',
    (_name, dir, manifest) => {
      it('has a LICENSE of the licence its package.json names', () => {
        expect(manifest.license).toBe('MIT');
        expect(readFileSync(join(dir, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} /);
      });

      it('lists in `files` only what exists (dist once built)', () => {
        const files = manifest.files as string[];
        expect(files).toEqual(expect.arrayContaining(['dist', 'README.md', 'CHANGELOG.md', 'LICENSE']));
        const missing = files.filter((f) => f !== 'dist' && !existsSync(join(dir, f)));
        expect(missing).toEqual([]);
        expect(readFileSync(join(dir, 'CHANGELOG.md'), 'utf8')).toMatch(new RegExp(`^# ${manifest.name}\\n`));
      });

      it('packs its licence, readme and changelog (npm pack --dry-run)', async () => {
        const { stdout } = await promisify(execFile)(
          'npm',
          ['pack', '--dry-run', '--json', '--ignore-scripts'],
          {
            cwd: dir,
          },
        );
        const packed = (JSON.parse(stdout) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path);
        expect(packed).toEqual(
          expect.arrayContaining(['LICENSE', 'README.md', 'CHANGELOG.md', 'package.json']),
        );
        expect(packed?.filter((p) => /(^|\/)(test|src|node_modules)\//.test(p))).toEqual([]);
      }, 60_000);
    },
  );
});
