// What the console's suites without a browser share: the server on a fresh database of an engine, answering
// injected requests as the console at ORIGIN (its mail to an outbox), and a signed-in person's session cookie.
import { type EngineSpec, removeDir, tempDir } from '@expense/test-kit';
import type { FastifyInstance } from 'fastify';
import { createServer } from '../../../index.js';
import { type Database, openDatabase } from '../../../platform/storage/index.js';
import { createApiKey } from '../../auth/api-keys.js';
import { createUser } from '../../sql/test/setup.js';
import { consoleCookieName } from '../session.js';

export const ORIGIN = 'http://console.example.test';

export interface ConsoleApp {
  app: FastifyInstance;
  db: Database;
  /** A console session of `userId` (a new user by default): its cookie, as the browser sends it, and its key's id. */
  session(userId?: string): Promise<{ userId: string; cookie: string; connectionId: string }>;
  /** Closes the server and drops its database, also after a failed start. */
  close(): Promise<void>;
}

export async function consoleApp(engine: EngineSpec): Promise<ConsoleApp> {
  const target = await engine.open();
  const outbox = await tempDir();
  let db: Database | undefined;
  let app: FastifyInstance | undefined;
  const close = async () => {
    await app?.close();
    await db?.close();
    await target.drop();
    await removeDir(outbox);
  };
  try {
    db = await openDatabase({ databaseUrl: target.url, directUrl: target.directUrl });
    app = await createServer(
      { publicUrl: ORIGIN, mailOutbox: outbox, logLevel: 'silent', ratePerSecond: 1000 },
      { database: db },
    );
  } catch (error) {
    await close();
    throw error;
  }
  const opened = db;
  return {
    app,
    db: opened,
    async session(userId) {
      const owner = userId ?? (await createUser(opened)).userId;
      const key = await createApiKey(opened, owner, 'Console session', {
        kind: 'console',
        expiresAt: new Date(Date.now() + 3_600_000),
      });
      return {
        userId: owner,
        cookie: `${consoleCookieName(ORIGIN)}=${key.apiKey}`,
        connectionId: key.connectionId,
      };
    },
    close,
  };
}
