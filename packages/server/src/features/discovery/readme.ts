import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package README, found by walking up from this module (src/ in development, dist/ when installed). */
export function loadReadme(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && JSON.parse(readFileSync(pkg, 'utf8')).name === '@expense/server') {
      const readme = join(dir, 'README.md');
      return existsSync(readme) ? readFileSync(readme, 'utf8') : undefined;
    }
    dir = dirname(dir);
  }
  return undefined;
}
