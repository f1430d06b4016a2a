// The consent rule over plain values (checkKeyConsent): what the ApiKey hook applies to every keyed route and
// MCP's in-process SQL calls directly, with no request object.
import { render } from '@expense/wire';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../platform/http/api-error.js';
import type { Principal } from '../api-keys.js';
import { checkKeyConsent, enforceKeyConsent } from '../consent.js';

const W1 = '0d6b1f2e-6a8c-4c57-9d0b-2f7f4b1c9a01';
const W2 = '7c3a9e55-1b2d-4f60-8e11-5a9c0d2b7e02';

const key = (access: Principal['access'], workspaceId: string | null = null): Principal => ({
  connectionId: 'c1',
  userId: 'u1',
  kind: 'agent',
  access,
  workspaceId,
});

function refusal(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('no refusal');
}

describe('checkKeyConsent', () => {
  it('lets a read key read and refuses it a write, as read_only_key', () => {
    expect(checkKeyConsent(key('read'), { access: 'read', workspaceIds: [] })).toBeUndefined();
    const refused = refusal(() => checkKeyConsent(key('read'), { access: 'write', workspaceIds: [] }));
    expect(refused.code).toBe('forbidden');
    expect(refused.options.variant).toBe('read_only_key');
  });

  it('gives a bound key its workspace, named or not, in any case, and refuses another', () => {
    const bound = key('read_write', W1);
    expect(checkKeyConsent(bound, { access: 'write', workspaceIds: [] })).toBe(W1);
    expect(checkKeyConsent(bound, { access: 'write', workspaceIds: [` ${W1.toUpperCase()} `] })).toBe(W1);
    const refused = refusal(() => checkKeyConsent(bound, { access: 'read', workspaceIds: [W1, W2] }));
    expect(refused.code).toBe('forbidden');
    expect(refused.message).toBe('This key is limited to another workspace.');
  });

  it('refuses narrow keys where a route says so, and lets a whole-reach key through', () => {
    const ask = { access: 'write', narrowKeys: 'refuse', workspaceIds: [W2] } as const;
    expect(refusal(() => checkKeyConsent(key('read_write', W1), ask)).options.variant).toBe('account_scope');
    expect(refusal(() => checkKeyConsent(key('read'), { ...ask, access: 'read' })).code).toBe('forbidden');
    expect(checkKeyConsent(key('read_write'), ask)).toBeUndefined();
    const create = { access: 'write', workspaceBoundKeys: 'refuse', workspaceIds: [] } as const;
    const bound = refusal(() => checkKeyConsent(key('read_write', W1), create));
    expect(bound.options).toMatchObject({ variant: 'workspace_bound_key', facts: { workspace: W1 } });
    expect(render(bound.received(), 'http').hint).toContain(W1);
  });

  it('is what the hook applies to a request: the bound workspace becomes its X-Workspace-Id', () => {
    const request = {
      method: 'POST',
      params: {},
      headers: {} as Record<string, string | string[] | undefined>,
      routeOptions: { config: { keyAccess: 'read' as const } },
    };
    enforceKeyConsent(request, key('read', W1));
    expect(request.headers['x-workspace-id']).toBe(W1);
    const write = { ...request, routeOptions: { config: {} } };
    expect(refusal(() => enforceKeyConsent(write, key('read'))).options.variant).toBe('read_only_key');
  });
});
