import {
  codeOf,
  copyMigratedPglite,
  lastMailTo,
  migratedPostgres,
  removeDir,
  routePath,
  tempDir,
} from '@expense/test-kit';
import { AGENT_ROUTES, API_ROUTES } from '@expense/wire';
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, type ServerConfigInput } from '../../../index.js';
import { injectClient } from '../../http/test/helpers.js';

const dirs: string[] = [];
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
  for (const dir of dirs) await removeDir(dir);
});

const targets = [
  {
    name: 'PGlite in a data directory',
    open: async (): Promise<ServerConfigInput> => {
      const dataDir = await tempDir();
      dirs.push(dataDir);
      await copyMigratedPglite(dataDir); // a restart is what is tested, not the first migration
      return { dataDir };
    },
  },
  {
    name: 'PostgreSQL',
    open: async (): Promise<ServerConfigInput> => {
      const pg = await migratedPostgres();
      drops.push(pg.drop);
      return { databaseUrl: pg.url };
    },
  },
];

describe.each(targets)('a restart on $name', (target) => {
  it('keeps users, keys and workspaces', async () => {
    const outbox = await tempDir();
    dirs.push(outbox);
    const config = { ...(await target.open()), mailOutbox: outbox, logLevel: 'silent' as const };

    const first = await createServer(config);
    const c1 = injectClient(first);
    const sent = await c1.request('POST', routePath(AGENT_ROUTES.sendCode), {
      body: { email: 'keep@example.com' },
    });
    const verified = await c1.request('POST', routePath(AGENT_ROUTES.verifyCode), {
      body: {
        code: codeOf(await lastMailTo(outbox, 'keep@example.com')),
        otpSessionToken: sent.body.data.otpSessionToken,
        label: 'kept',
      },
    });
    const key = verified.body.data.apiKey as string;
    const ws = (
      await c1.request('POST', routePath(API_ROUTES.createWorkspace), { key, body: { name: 'Kept' } })
    ).body.data.workspace;
    await c1.request('POST', routePath(API_ROUTES.selectWorkspace, { workspaceId: ws.workspaceId }), { key });
    await first.close();

    const second = await createServer(config);
    try {
      const c2 = injectClient(second);
      const me = await c2.request('GET', routePath(API_ROUTES.me), { key });
      expect(me.status).toBe(200);
      expect(me.body.data.user).toEqual(verified.body.data.user);
      expect(me.body.data.selectedWorkspaceId).toBe(ws.workspaceId);
      const list = await c2.request('GET', routePath(API_ROUTES.workspaces), { key });
      expect(list.body.data.workspaces).toEqual([{ ...ws, selected: true }]);
    } finally {
      await second.close();
    }
  });
});
