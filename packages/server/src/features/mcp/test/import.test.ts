// Issue 37, item 5: the MCP `import` tool through `expense mcp` (the BUILT CLI, spawned and driven over stdio by the
// SDK's client) against a real server, on both engines: for the same bytes the rows of POST /v1/imports; the
// confirmation flow of execute (dry run → token → one change, once; the token bound to the file, its options and
// the workspace); refusals as coded tool errors in the tools' words that write nothing. And the server's own McpApi
// (inject-api.ts, what /mcp's tools call) answers the same data as POST /v1/imports.
import { randomUUID } from 'node:crypto';
import { CLEARING_ACCOUNT } from '@expense/import';
import { McpApiError } from '@expense/mcp';
import { call as callRoute, routePath } from '@expense/test-kit';
import { API_PREFIX, API_ROUTES } from '@expense/wire';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../auth/api-keys.js';
import { AMBIGUOUS_CARD, FILES, fixture } from '../../imports/test/fixtures.js';
import { addWorkspace, ENGINES, type Live, startWithWorkspace, type TestUser } from '../../sql/test/setup.js';
import { injectApi } from '../inject-api.js';
import { call, cliBuilt, errorOf, type Json, stdioClient, textOf } from './helpers.js';

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
/** A fixture's text exactly (a BOM kept): its UTF-8 encoding is the file's bytes again. */
const text = (bytes: Uint8Array) => new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
/** What a tool error must never name: an HTTP route or query parameter, or a CLI option. */
const FOREIGN = /\/v1\/|\bPOST \/|\?[a-zA-Z]+=|(?:^|[\s("'`])--[a-z]/;

describe.runIf(cliBuilt('the MCP import suite')).each(ENGINES)(
  'the import tool through expense mcp on $name',
  (engine) => {
    let live: Live;
    let user: TestUser;
    let client: Client;

    beforeAll(async () => {
      ({ live, user } = await startWithWorkspace(engine));
      ({ client } = await stdioClient(`${live.origin}${API_PREFIX}`, user.apiKey));
    });
    afterAll(async () => {
      await client?.close();
      await live?.close();
    });

    const workspace = (name: string) =>
      addWorkspace(live.db, user.userId, `${name} ${randomUUID().slice(0, 6)}`);
    const rowsIn = async (ws: string) =>
      (
        await live.db.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM public.ledger_entries WHERE workspace_id = $1',
          [ws],
        )
      ).rows[0]!.n;
    const changesIn = async (ws: string) =>
      (await callRoute(live, API_ROUTES.changes, { key: user.apiKey, headers: { 'x-workspace-id': ws } }))
        .body.data.changes.length as number;
    /** POST /v1/imports itself, for the same bytes. */
    const viaHttp = async (bytes: Uint8Array, query: Record<string, string>, ws: string): Promise<Json> =>
      (
        await fetch(`${live.origin}${routePath(API_ROUTES.importFile, {}, query)}`, {
          method: 'POST',
          headers: {
            authorization: `ApiKey ${user.apiKey}`,
            'x-workspace-id': ws,
            'content-type': 'application/octet-stream',
          },
          body: bytes,
        })
      ).json();
    /** A refusal that is a coded tool error in the tools' words, and left the workspace as it was. */
    const refused = async (res: Json, code: string, ws: string, rows = 0) => {
      const e = errorOf(res);
      expect(e.error.code, textOf(res)).toBe(code);
      expect(`${e.error.message} ${e.error.hint ?? ''} ${e.nextAction}`).not.toMatch(FOREIGN);
      expect(await rowsIn(ws)).toBe(rows);
      return e;
    };

    it.each(FILES)(
      '$name: the rows POST /v1/imports gives for the same bytes; dry run → token → one change, once',
      async (file) => {
        const ws = await workspace(file.name);
        const bytes = fixture(file.name);
        const account: Record<string, string> = file.account ? { account: file.account } : {};
        const http = await viaHttp(bytes, { ...account, dryRun: 'true' }, ws);
        expect(http.ok, JSON.stringify(http)).toBe(true);
        const { confirmToken: _httpToken, confirmTokenExpiresAt: _at, notes, ...expected } = http.data;

        // The dry run in one encoding and the commit in the other: the token is bound to the bytes.
        const asText = { file: text(bytes) };
        const asBase64 = { file: base64(bytes), encoding: 'base64' };
        const [first, second] = file.name.endsWith('.ofx') ? [asBase64, asText] : [asText, asBase64];
        const dry = await call(client, 'import', { ...first, ...account, workspaceId: ws });
        expect(dry.isError, textOf(dry)).toBeFalsy();
        const { confirmToken, expiresAt, notes: dryNotes, ...data } = dry.structuredContent;
        expect(data).toEqual(expected);
        // The reader's notes as the API words them (they name no route and no CLI option), unchanged.
        expect(dryNotes).toEqual(notes);
        for (const note of notes) expect(note).not.toMatch(FOREIGN);
        expect(expected.rows.add).toBeGreaterThan(0);
        expect(confirmToken).toEqual(expect.any(String));
        expect(Date.parse(expiresAt)).toBeGreaterThan(Date.now());
        expect(textOf(dry)).toMatch(/^DRY RUN of the import in workspace /);
        expect(textOf(dry)).toContain(`confirmToken: ${confirmToken}`);
        expect(await rowsIn(ws)).toBe(0);

        const done = await call(client, 'import', { ...second, ...account, workspaceId: ws, confirmToken });
        expect(done.isError, textOf(done)).toBeFalsy();
        expect(done.structuredContent).toMatchObject({ committed: true, rows: { add: expected.rows.add } });
        const { changeId } = done.structuredContent;
        expect(changeId).toMatch(/^[0-9a-f-]{36}$/);
        expect(textOf(done)).toContain(
          `IMPORTED ${expected.rows.add} row(s) in workspace ${ws} as change ${changeId}`,
        );
        // The file's rows, and the other side of each card payment held on the clearing account (issue 37).
        const held = notes.filter((n: string) => n.includes(`held on ${CLEARING_ACCOUNT}`)).length;
        expect(await rowsIn(ws)).toBe(expected.rows.add + held);
        expect(await changesIn(ws)).toBe(1);
        const written = await live.db.query<{ external_id: string; amount: string }>(
          'SELECT external_id, amount::text AS amount FROM public.ledger_entries WHERE workspace_id = $1 AND account_id <> $2',
          [ws, CLEARING_ACCOUNT],
        );
        const shown = (rows: { external_id: string; amount: string }[]) =>
          rows.map((r) => `${r.external_id} ${Number(r.amount)}`).sort();
        expect(shown(written.rows)).toEqual(shown(expected.toAdd));

        // The same token again is the same commit: its kept answer, nothing added, no second change.
        const again = await call(client, 'import', { ...first, ...account, workspaceId: ws, confirmToken });
        expect(again.isError, textOf(again)).toBeFalsy();
        expect(again.structuredContent).toMatchObject({ replayed: true, changeId });
        expect(textOf(again)).toMatch(/^ALREADY COMMITTED/);
        expect(await rowsIn(ws)).toBe(expected.rows.add + held);
        expect(await changesIn(ws)).toBe(1);
      },
    );

    it('a token commits only its file, with its account, in its workspace; another idempotencyKey finds it spent', async () => {
      const ws = await workspace('tokens');
      const wise = { file: text(fixture('wise.csv')), account: 'wise', workspaceId: ws };
      const dry = await call(client, 'import', wise);
      const { confirmToken } = dry.structuredContent;
      const other = await workspace('other');
      for (const args of [
        { ...wise, file: text(fixture('uk-amex-uk.csv')) },
        { ...wise, account: 'elsewhere' },
        { ...wise, workspaceId: other },
      ]) {
        const e = await refused(
          await call(client, 'import', { ...args, confirmToken }),
          'confirmation_mismatch',
          ws,
        );
        expect(e.error.hint).toMatch(/exactly the file, account, charges and currency/);
        expect(e.nextAction).toMatch(/^Call import without confirmToken/);
      }
      expect(await rowsIn(other)).toBe(0);
      // Committing needs the token: dryRun: false alone commits nothing.
      await refused(await call(client, 'import', { ...wise, dryRun: false }), 'confirmation_required', ws);

      const done = await call(client, 'import', { ...wise, confirmToken });
      expect(done.structuredContent.committed).toBe(true);
      const added = await rowsIn(ws);
      expect(added).toBe(dry.structuredContent.rows.add);
      await refused(
        await call(client, 'import', { ...wise, confirmToken, idempotencyKey: `another-${ws}` }),
        'confirmation_used',
        ws,
        added,
      );
      // A dry run of the imported file: nothing to add, and no token.
      const nothing = await call(client, 'import', wise);
      expect(nothing.structuredContent).toMatchObject({ rows: { add: 0 }, committed: false });
      expect(nothing.structuredContent).not.toHaveProperty('confirmToken');
      expect(textOf(nothing)).toMatch(/^NOTHING TO ADD/);
    });

    it('refuses malicious and unreadable files with a coded tool error, and writes nothing', async () => {
      const ws = await workspace('hostile');
      const noise = new Uint8Array(4096).map((_, i) => (i * 7919) % 256);
      const zip = Uint8Array.from([
        0x50,
        0x4b,
        0x03,
        0x04,
        20,
        0,
        0,
        0,
        8,
        0,
        ...new TextEncoder().encode('x'),
      ]);
      const laughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt><Ntry><AddtlNtryInf>&lol2;</AddtlNtryInf></Ntry></Stmt></BkToCstmrStmt></Document>`;
      const external = `<?xml version="1.0"?><!DOCTYPE OFX [<!ENTITY x SYSTEM "file:///etc/passwd">]><OFX><STMTTRN><NAME>&x;</NAME></STMTTRN></OFX>`;
      for (const args of [
        { file: base64(noise), encoding: 'base64', name: 'statement.csv' },
        { file: base64(zip), encoding: 'base64', name: 'export.csv' },
        { file: laughs, name: 'statement.xml' },
        { file: external, name: 'statement.ofx' },
        { file: '' },
      ]) {
        await refused(
          await call(client, 'import', { ...args, account: 'hostile', workspaceId: ws }),
          'import_unreadable',
          ws,
        );
      }
      const e = await refused(
        await call(client, 'import', { file: 'not base64!', encoding: 'base64', workspaceId: ws }),
        'invalid_request',
        ws,
      );
      expect(e.error.message).toMatch(/^file is not base64/);
      expect(await changesIn(ws)).toBe(0);
    });

    it("asks for what the file cannot tell in the tool's arguments: the charges of a card, the account", async () => {
      const ws = await workspace('asked');
      const card = { file: AMBIGUOUS_CARD, account: 'card', workspaceId: ws };
      const sign = await refused(await call(client, 'import', card), 'import_ambiguous_sign', ws);
      expect(sign.error.hint).toContain('charges: "positive"');
      const told = await call(client, 'import', { ...card, charges: 'positive' });
      expect(told.structuredContent.toAdd.map((r: Json) => r.amount)).toEqual(['-4.50', '-82.13', '-19.99']);
      const account = await refused(
        await call(client, 'import', { file: text(fixture('wise.csv')), workspaceId: ws }),
        'invalid_request',
        ws,
      );
      expect(account.error.hint).toMatch(
        /^The file names no account: call import again with the account argument/,
      );
      // A layout nothing reads: the reader's hint proposes a column mapping, which the tool does not take; the
      // tool's hint says what an agent can do instead.
      const layout = await refused(
        await call(client, 'import', { file: 'Foo,Bar\nqq,zz\nrr,ss\n', account: 'x', workspaceId: ws }),
        'invalid_request',
        ws,
      );
      expect(layout.error.hint).toMatch(
        /^The file's columns cannot be told apart, and the import tool takes no/,
      );
    });

    it('a read-only key is refused, and nothing is written', async () => {
      const ws = await workspace('read-only');
      const { apiKey } = await createApiKey(live.db, user.userId, 'read only', {
        kind: 'agent',
        access: 'read',
      });
      const ro = await stdioClient(`${live.origin}${API_PREFIX}`, apiKey);
      try {
        const res = await call(ro.client, 'import', {
          file: text(fixture('wise.csv')),
          account: 'wise',
          workspaceId: ws,
        });
        await refused(res, 'forbidden', ws);
        expect(await changesIn(ws)).toBe(0);
      } finally {
        await ro.client.close();
      }
    });

    it("the server's McpApi (what /mcp's tools call) answers POST /v1/imports's data, and its refusals", async () => {
      const ws = await workspace('inject');
      const api = injectApi({
        app: live.app,
        basePath: API_PREFIX,
        authorization: `ApiKey ${user.apiKey}`,
        remoteAddress: '127.0.0.1',
      });
      for (const file of FILES) {
        const bytes = fixture(file.name);
        const account: Record<string, string> = file.account ? { account: file.account } : {};
        const {
          confirmToken: _t,
          confirmTokenExpiresAt: _e,
          ...expected
        } = (await viaHttp(bytes, { ...account, dryRun: 'true' }, ws)).data;
        const {
          confirmToken,
          confirmTokenExpiresAt: _x,
          instructions,
          ...data
        } = await api.importFile(bytes, {
          ...account,
          dryRun: true,
          workspaceId: ws,
        });
        expect(data).toEqual(expected);
        expect(confirmToken).toEqual(expect.any(String));
        expect(instructions?.[0]).toMatch(/^Dry run: /);
      }
      const card = new TextEncoder().encode(AMBIGUOUS_CARD);
      const error = await api.importFile(card, { account: 'card', workspaceId: ws }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpApiError);
      expect((error as McpApiError).error.code).toBe('import_ambiguous_sign');
      expect(await rowsIn(ws)).toBe(0);
    });
  },
);
