// What an agent reads over /mcp names tools, never HTTP routes or headers (issue 23, item 5: one write flow per
// transport). The schema's rules come from GET /schema, written for HTTP; the tool relays them in its own words.
import { call, PGLITE } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Live, startWithWorkspace, type TestUser } from '../../sql/test/setup.js';
import type { Json } from './helpers.js';

const HTTP_WORDS = /\b(?:GET|POST|PUT|PATCH|DELETE) \/|X-Workspace-Id|dryRun|\/sql\b/;

describe('texts served over /mcp speak of tools', () => {
  let live: Live;
  let user: TestUser;
  beforeAll(async () => {
    ({ live, user } = await startWithWorkspace(PGLITE));
  });
  afterAll(async () => live?.close());

  const callTool = async (name: string, args: Record<string, unknown>) => {
    const res = await fetch(`${live.origin}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `ApiKey ${user.apiKey}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args },
      }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { result: Json }).result;
  };

  it('get_schema: the rules name the tools (history, revert, execute), not the routes', async () => {
    const http = await call(live, API_ROUTES.schema, { key: user.apiKey });
    expect(http.body.data.rules.join('\n')).toMatch(/GET \/changes/);
    const result = await callTool('get_schema', {});
    expect(result.isError ?? false, JSON.stringify(result).slice(0, 400)).toBe(false);
    const rules: string[] = result.structuredContent.rules;
    expect(rules.length).toBe(http.body.data.rules.length);
    for (const rule of rules) expect(rule).not.toMatch(HTTP_WORDS);
    expect(rules.join('\n')).toContain('the history tool');
    expect(rules.join('\n')).toContain('the revert tool');
    // A relation's hints too: the transfer rule says how to send both legs in a call, not in a /sql script.
    const httpLedger = http.body.data.relations.find((r: { name: string }) => r.name === 'ledger_entries');
    expect(httpLedger.hints.join('\n')).toMatch(/\/sql script/);
    const ledger = result.structuredContent.relations.find(
      (r: { name: string }) => r.name === 'ledger_entries',
    );
    expect(ledger.hints).toHaveLength(httpLedger.hints.length);
    expect(ledger.hints.join('\n')).toContain('the execute tool with several statements');
    expect(result.content[0].text).not.toMatch(HTTP_WORDS);
  });

  it('get_guide: no topic describes the HTTP flow', async () => {
    for (const topic of ['sql-dialect', 'writing-data', 'recipes']) {
      const result = await callTool('get_guide', { topic });
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent.markdown).not.toMatch(HTTP_WORDS);
    }
  });
});
