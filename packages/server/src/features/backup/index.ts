/** Backups of the embedded engine (docs/operations.md, Backups): the admin route and the schedule. */

import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { durationMs, type ServerConfig } from '../../platform/config/config.js';
import type { Database } from '../../platform/storage/database.js';
import {
  loopbackUrl,
  newAdminToken,
  registerAdminBackup,
  removeServerState,
  writeServerState,
} from './admin.js';
import { startBackupSchedule } from './schedule.js';

export * from './admin.js';
export * from './files.js';
export * from './schedule.js';

/**
 * On the embedded engine in a data directory (not `memory://`, not a database the caller opened): the admin
 * backup route and its state file, and the scheduled backups when EXPENSE_BACKUP_DIR is set.
 */
export async function embeddedBackups(
  app: FastifyInstance,
  config: ServerConfig,
  db: Database,
): Promise<void> {
  const dump = db.dumpDataDir?.bind(db);
  if (db.engine !== 'pglite' || !dump || config.databaseUrl !== undefined) {
    if (config.backupDir) {
      app.log.warn(
        'EXPENSE_BACKUP_DIR applies to the embedded engine only: back a PostgreSQL server up with its own tools (pg_dump)',
      );
    }
    return;
  }
  const dataDir = resolve(config.dataDir);
  const token = newAdminToken();
  registerAdminBackup(app, token, dump);
  const schedule = config.backupDir
    ? startBackupSchedule({
        dump,
        dir: resolve(config.backupDir),
        everyMs: durationMs(config.backupEvery),
        keep: config.backupKeep,
        logger: app.log,
      })
    : undefined;
  // Written at once (a server that is not listening yet: `backup` waits, `restore` refuses), then with its URL.
  await writeServerState(dataDir, { pid: process.pid, url: null, token });
  app.addHook('onListen', async () => {
    const address = app.server.address() as AddressInfo | null;
    if (!address || typeof address !== 'object') return;
    await writeServerState(dataDir, {
      pid: process.pid,
      url: loopbackUrl(config.host, address.port),
      token,
    });
  });
  app.addHook('onClose', async () => {
    await schedule?.stop();
    await removeServerState(dataDir, token);
  });
}
