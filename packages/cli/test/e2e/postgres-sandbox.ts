import { freshPostgres } from '@expense/test-kit';
import { openSandbox, type Sandbox } from './harness.js';

/**
 * A sandbox whose built server runs on a fresh PostgreSQL database (dropped by `close`): it starts in a
 * fraction of the in-memory engine's time on a busy machine. One per test file.
 */
export async function openPostgresSandbox(prefix: string): Promise<Sandbox & { close(): Promise<void> }> {
  const database = await freshPostgres({ prefix: 'expense_cli_e2e' });
  try {
    const sandbox = await openSandbox(prefix, { DATABASE_URL: database.url });
    return {
      ...sandbox,
      async close() {
        try {
          await sandbox.server.stop();
          await sandbox.dir.remove();
        } finally {
          await database.drop();
        }
      },
    };
  } catch (error) {
    await database.drop();
    throw error;
  }
}
