import pg from 'pg';
import type { ListenHandlers, StorageLogger } from './engine.js';

const CHANNEL = /^[a-z_][a-z0-9_]*$/;
const RETRY_MS = 1_000;

/**
 * LISTEN on a PostgreSQL channel over a connection of its own (a pooled one would be handed to others). A lost
 * connection is reopened every second until it listens again; then `reset` tells the caller that what was
 * announced meanwhile was missed. Resolves once listening, or once the first attempt failed (it keeps trying).
 */
export async function listenOnPostgres(
  connectionString: string,
  channel: string,
  handlers: ListenHandlers,
  logger?: StorageLogger,
): Promise<() => Promise<void>> {
  if (!CHANNEL.test(channel)) throw new TypeError(`Not a channel name: ${channel}`);
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;

  const schedule = () => {
    if (stopped) return;
    retry = setTimeout(() => void open(), RETRY_MS);
    retry.unref();
  };
  const open = async () => {
    const candidate = new pg.Client({ connectionString, application_name: 'expense-server-listen' });
    candidate.on('notification', (message) => {
      if (message.channel === channel) handlers.notify(message.payload ?? '');
    });
    candidate.on('error', () => {}); // followed by 'end', handled there
    candidate.on('end', () => {
      if (client !== candidate) return;
      client = undefined;
      if (stopped) return;
      logger?.warn({ channel }, 'lost the LISTEN connection; reconnecting');
      schedule();
    });
    try {
      await candidate.connect();
      await candidate.query(`LISTEN ${channel}`);
    } catch (error) {
      await candidate.end().catch(() => undefined);
      logger?.warn({ channel, err: { message: (error as Error).message } }, 'could not LISTEN; retrying');
      schedule();
      return;
    }
    if (stopped) {
      await candidate.end().catch(() => undefined);
      return;
    }
    client = candidate;
    handlers.reset();
  };

  await open();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const last = client;
    client = undefined;
    await last?.end().catch(() => undefined);
  };
}
