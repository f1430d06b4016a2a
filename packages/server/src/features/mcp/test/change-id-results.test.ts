// Issue 23, item 4, over MCP: the results of a committed `execute` and a committed `revert` carry the changeId of
// their entry in the change history (structured content and text), and a dry run carries none.
import { call as callRoute } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ENGINES,
  insertEntries,
  type Live,
  startWithWorkspace,
  type TestUser,
} from '../../sql/test/setup.js';
import { call, httpClient } from './helpers.js';

describe.each(ENGINES)('changeId in MCP write results on $name', (engine) => {
  let live: Live;
  let user: TestUser;
  let workspaceId: string;

  beforeAll(async () => {
    ({ live, user, workspaceId } = await startWithWorkspace(engine));
  });
  afterAll(async () => live?.close());

  const newestChange = async (): Promise<{ changeId: string; shortId: string }> => {
    const res = await callRoute(live, API_ROUTES.changes, { query: { limit: 1 }, key: user.apiKey });
    return res.body.data.changes[0];
  };
  const newest = async (): Promise<string> => (await newestChange()).changeId;

  it('execute and revert answer the changeId of what they committed', async () => {
    const client = await httpClient(live, user.apiKey, 'inject');
    try {
      const sql = insertEntries(2, 'mcp-change-id');
      const dry = await call(client, 'execute', { sql, workspaceId });
      expect(dry.isError, JSON.stringify(dry)).toBeFalsy();
      expect(dry.structuredContent).not.toHaveProperty('changeId');
      const done = await call(client, 'execute', {
        sql,
        workspaceId,
        confirmToken: dry.structuredContent.confirmToken,
      });
      // Issue 41: and the short id the history, the console and the CLI show, in the text too.
      const { changeId, shortId } = await newestChange();
      expect(done.structuredContent).toMatchObject({ changeId, shortId });
      expect(done.content[0].text).toContain(`as change ${changeId} (short id ${shortId}`);

      const preview = await call(client, 'revert', {
        changeId: done.structuredContent.changeId,
        workspaceId,
      });
      expect(preview.isError, JSON.stringify(preview)).toBeFalsy();
      expect(preview.structuredContent.changeId ?? null).toBeNull();
      const reverted = await call(client, 'revert', {
        changeId: done.structuredContent.changeId,
        workspaceId,
        confirmToken: preview.structuredContent.confirmToken,
      });
      expect(reverted.isError, JSON.stringify(reverted)).toBeFalsy();
      expect(reverted.structuredContent.committed).toBe(true);
      const revertId = await newest();
      expect(revertId).not.toBe(done.structuredContent.changeId);
      expect(reverted.structuredContent.changeId).toBe(revertId);
      expect(reverted.content[0].text).toContain(`the revert is change ${revertId}`);
    } finally {
      await client.close();
    }
  });
});
