/** Scheduled backups of the embedded engine: EXPENSE_BACKUP_DIR, EXPENSE_BACKUP_EVERY, EXPENSE_BACKUP_KEEP. */
import { join } from 'node:path';
import { backupFileName, rotateBackups, writeAtomically } from './files.js';

export interface BackupScheduleOptions {
  dump: () => Promise<Uint8Array>;
  dir: string;
  everyMs: number;
  keep: number;
  logger: { info(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}

export interface BackupSchedule {
  /** No further backups; waits for one under way. */
  stop(): Promise<void>;
}

/** Takes a backup every `everyMs` (the first after one period), then deletes all but the newest `keep`. */
export function startBackupSchedule(options: BackupScheduleOptions): BackupSchedule {
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = async () => {
    const started = Date.now();
    const file = join(options.dir, backupFileName(new Date(started)));
    try {
      const bytes = await options.dump();
      await writeAtomically(file, bytes);
      const deleted = await rotateBackups(options.dir, options.keep);
      options.logger.info(
        { file, bytes: bytes.length, ms: Date.now() - started, deleted },
        'backup: wrote a scheduled backup of the embedded database',
      );
    } catch (error) {
      if (!stopped) options.logger.error({ err: error, file }, 'backup: the scheduled backup failed');
    }
  };
  const timer = setInterval(() => {
    if (running || stopped) return; // one at a time: a slow backup skips the next period
    running = run().finally(() => {
      running = undefined;
    });
  }, options.everyMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
