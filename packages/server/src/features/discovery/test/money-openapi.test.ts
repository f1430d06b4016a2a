// Issue 23, "Done when": the route changes (GET /v1/reports/{kind}; POST /v1/workspaces {name, currency?,
// timeZone?} with unknown fields refused; data.changeId of committed writes; a revert whose body is optional;
// data.clock.timeZone) are in the OpenAPI document, in docs/api.md and in a changeset.
// The /v1/... paths here are the OpenAPI document's own keys, which the test reads.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../../../index.js';

const ROOT = join(import.meta.dirname, '..', '..', '..', '..', '..', '..');

type Schema = { properties?: Record<string, Schema>; [key: string]: unknown };
const dataOf = (operation: { responses: Record<string, { content: Record<string, { schema: Schema }> }> }) =>
  operation.responses['200']!.content['application/json']!.schema.properties!.data!;

describe('the money routes in the OpenAPI document, docs/api.md and the changesets', () => {
  let app: FastifyInstance;
  // biome-ignore lint/suspicious/noExplicitAny: the document is JSON read field by field
  let doc: any;
  beforeAll(async () => {
    app = await createServer({ databaseUrl: 'memory://', logLevel: 'silent' });
    doc = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  });
  afterAll(async () => app?.close());

  it('describes GET /reports/{kind}: kinds, from/to/currency, rows and fx', () => {
    const op = doc.paths['/v1/reports/{kind}'].get;
    const params = Object.fromEntries(
      (op.parameters as { name: string; in: string; required: boolean; schema: Schema }[]).map((p) => [
        p.name,
        p,
      ]),
    );
    expect(params.kind).toMatchObject({ in: 'path', required: true });
    expect(params.kind!.schema.enum).toEqual([
      'spend_by_category',
      'budget_vs_actual',
      'balances',
      'monthly_trend',
    ]);
    expect(params.from).toMatchObject({ in: 'query', required: true, schema: { format: 'date' } });
    expect(params.to).toMatchObject({ in: 'query', required: true, schema: { format: 'date' } });
    expect(params.currency).toMatchObject({
      in: 'query',
      required: false,
      schema: { pattern: '^[A-Z]{3}$' },
    });
    const data = dataOf(op);
    expect(Object.keys(data.properties!)).toEqual(
      expect.arrayContaining(['kind', 'from', 'to', 'currency', 'rows', 'fx', 'notes']),
    );
    expect(Object.keys(data.properties!.fx!.properties!)).toEqual(['newestRateDate', 'stale', 'unconverted']);
  });

  it('describes POST /workspaces {name, currency?, timeZone?}, unknown fields refused', () => {
    const body = doc.paths['/v1/workspaces'].post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['name']);
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.currency).toMatchObject({ type: 'string', pattern: '^[A-Z]{3}$' });
    expect(body.properties.timeZone).toMatchObject({ type: 'string' });
    const created = doc.paths['/v1/workspaces'].post.responses['201'].content['application/json'].schema
      .properties.data as Schema;
    expect(Object.keys(created.properties!.settings!.properties!)).toEqual(['currency', 'timeZone']);
  });

  it('names changeId and clock.timeZone in SQL results, and the revert body as optional', () => {
    for (const path of ['/v1/sql/execute', '/v1/sql']) {
      const data = dataOf(doc.paths[path].post);
      expect(data.properties, path).toHaveProperty('changeId');
      expect(data.properties!.clock!.properties, path).toHaveProperty('timeZone');
    }
    const revert = doc.paths['/v1/changes/{changeId}/revert'].post;
    expect(revert.requestBody.required).toBe(false);
    expect(dataOf(revert).properties).toHaveProperty('changeId');
  });

  it('docs/api.md and a changeset name the route changes', async () => {
    const api = await readFile(join(ROOT, 'docs', 'api.md'), 'utf8');
    for (const text of [
      'GET /v1/reports/{kind}?from=YYYY-MM-DD&to=YYYY-MM-DD[&currency=XXX]',
      '"timeZone": "Europe/Berlin"',
      '`data.changeId`',
      'body optional',
      "SQL runs in the workspace's time zone.",
    ])
      expect(api).toContain(text);
    const dir = join(ROOT, '.changeset');
    const changesets = await Promise.all(
      (await readdir(dir)).filter((f) => f.endsWith('.md')).map((f) => readFile(join(dir, f), 'utf8')),
    );
    const all = changesets.join('\n');
    for (const text of [
      'GET /v1/reports/{kind}',
      'POST /v1/workspaces {name, currency?, timeZone?}',
      '`changeId`',
    ])
      expect(all).toContain(text);
  });
});
