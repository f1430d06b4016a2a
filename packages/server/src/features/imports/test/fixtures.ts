// What the import suites share: three exports of @expense/import's corpus and the rows the reader gives them, a
// card's file and its paying account's, and a server with a user who posts them.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type LedgerRow, prepareImport } from '@expense/import';
import { routePath } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, expect } from 'vitest';
import {
  createUser,
  type EngineSpec,
  type Json,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';

export const EXPORTS = join(
  dirname(fileURLToPath(import.meta.url)),
  '../../../../../import/test/fixtures/exports',
);
export const fixture = (name: string) => new Uint8Array(readFileSync(join(EXPORTS, name)));

/** One CSV in no bank's layout, a card with positive charges (its preset), a statement (OFX). */
export const FILES = [
  { name: 'wise.csv', account: 'asked' },
  { name: 'uk-amex-uk.csv', account: 'asked' },
  { name: 'ca-rbc-chequing.ofx', account: undefined },
] as const;

/** A card export whose sign nothing tells. */
export const AMBIGUOUS_CARD = `Credit Card Statement,****4321
Date,Merchant,Amount
03/14/2026,COFFEE ROASTERS,4.50
03/15/2026,GROCERY OUTLET,82.13
03/18/2026,BOOKSHOP,19.99
`;

/** The rows as the reader gives them, without asking (the CLI's path with --account). */
export async function readerRows(name: string, account: string | undefined): Promise<LedgerRow[]> {
  const prepared = await prepareImport(
    { fileName: name, bytes: fixture(name), ...(account ? { account } : {}) },
    {
      chooseDateFormat: async () => {
        throw new Error('not asked');
      },
      workspaceCurrency: async () => 'USD',
    },
  );
  return prepared.rows as LedgerRow[];
}

// An American Express-like export: charges positive, the payment negative (the card's convention proves it a card).
export const CARD = `Date,Description,Amount
03/14/2026,GROCERY OUTLET,82.13
03/18/2026,PAYMENT RECEIVED - THANK YOU,-500.00
03/20/2026,BOOKSHOP,19.99
`;
// The checking account that paid it, three days earlier.
export const CHECKING = `Date,Description,Amount,Balance
03/13/2026,ACME SALARY,3000.00,4000.00
03/15/2026,AMEX AUTOPAY,-500.00,3500.00
03/16/2026,RENT,-1200.00,2300.00
`;

/** A suite's server on its engine and its user, and POST /v1/imports as that user (see importSuite). */
export interface ImportSuite {
  readonly live: Live;
  readonly user: TestUser;
  /** The Idempotent-Replayed header of the last post's answer. */
  readonly replayed: string | null;
  /** A CSV posted to the workspace with `defaults` and the query (and an Idempotency-Key): its data, once 200. */
  post(ws: string, body: string, query: Record<string, string>, key?: string): Promise<Json>;
}

/**
 * In a describe: a server on a fresh database of the engine and one user, started before its tests and closed
 * after, and a post of a bank file as that user.
 */
export function importSuite(engine: EngineSpec, defaults: Record<string, string> = {}): ImportSuite {
  let live: Live | undefined;
  let user: TestUser | undefined;
  let replayed: string | null = null;
  beforeAll(async () => {
    live = await startLive(engine);
    user = await createUser(live.db);
  });
  afterAll(async () => live?.close());
  const started = () => {
    if (!live || !user) throw new Error('the import suite has not started');
    return { live, user };
  };
  return {
    get live() {
      return started().live;
    },
    get user() {
      return started().user;
    },
    get replayed() {
      return replayed;
    },
    async post(ws, body, query, key) {
      const { live, user } = started();
      const res = await fetch(
        `${live.origin}${routePath(API_ROUTES.importFile, {}, { ...defaults, ...query })}`,
        {
          method: API_ROUTES.importFile.method,
          headers: {
            authorization: `ApiKey ${user.apiKey}`,
            'x-workspace-id': ws,
            'content-type': 'text/csv',
            ...(key ? { 'idempotency-key': key } : {}),
          },
          body,
        },
      );
      const json = (await res.json()) as Json;
      expect(res.status, JSON.stringify(json)).toBe(200);
      replayed = res.headers.get('idempotent-replayed');
      return json.data as Json;
    },
  };
}
