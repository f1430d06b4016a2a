import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CliResult,
  cli,
  loginWithoutTty,
  openSandbox,
  type RunningServer,
  type Sandbox,
} from '../../../../test/e2e/harness.js';

// keys, members and invitations with the built CLI against the built server. The invitation steps need the
// server's membership consent (GET /invitations, accept, decline; members with a status).
describe('expense keys, members and invitations end to end', () => {
  let sandbox: Sandbox;
  let server: RunningServer;
  let env: NodeJS.ProcessEnv;
  const seen = new Set<string>();
  const ada = 'ada@example.com';
  const bob = 'bob@example.com';
  const as = (profile: string) => ({ EXPENSE_PROFILE: profile });
  const run = (profile: string, args: string[], input?: string): Promise<CliResult> =>
    cli(args, { ...env, ...as(profile) }, input);
  const json = async (profile: string, args: string[]) => {
    const result = await run(profile, ['--json', ...args]);
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout);
  };
  const login = async (profile: string, email: string) => {
    const result = await loginWithoutTty({ ...env, ...as(profile) }, server.outbox, email, seen);
    expect(result.code, result.stderr).toBe(0);
  };

  beforeAll(async () => {
    sandbox = await openSandbox('expense-cli-members-', { database: 'postgres' });
    ({ server, env } = sandbox);
    await login('ada', ada);
    await login('bob', bob);
    expect((await run('ada', ['workspaces', 'create', 'Shared'])).code).toBe(0);
    expect((await run('ada', ['use', 'Shared'])).code).toBe(0);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('keys lists the caller’s keys, marks the current one, and revokes another', async () => {
    await login('ada-laptop', ada);
    const listed = await run('ada', ['keys']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\n').filter((l) => l.startsWith('*'))).toHaveLength(1);
    const { keys } = await json('ada', ['keys']);
    expect(keys).toHaveLength(2);
    const other = keys.find((k: { current: boolean }) => !k.current);
    const revoked = await run('ada', ['keys', 'revoke', other.connectionId]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stderr).toContain(`Revoked key ${other.connectionId}`);
    expect((await run('ada-laptop', ['whoami'])).code).toBe(4);
    expect((await json('ada', ['keys'])).keys).toHaveLength(1);
  });

  it('members lists the owner; invite creates an invitation that grants nothing until accepted', async () => {
    const list = await run('ada', ['members']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/ada@example\.com\s+owner\s+active/);
    const invited = await run('ada', ['members', 'invite', bob]);
    expect(invited.code, invited.stderr).toBe(0);
    expect(invited.stderr).toContain(`Invited ${bob}`);
    const { members } = await json('ada', ['members']);
    expect(members.find((m: { email: string }) => m.email === bob)).toMatchObject({ status: 'invited' });
    // Bob sees the invitation, not the workspace.
    const { workspaces } = await json('bob', ['workspaces']);
    expect(workspaces.map((w: { name: string }) => w.name)).not.toContain('Shared');
    const pending = await run('bob', ['invitations']);
    expect(pending.code).toBe(0);
    expect(pending.stdout).toMatch(/Shared\s+ada@example\.com/);
  });

  it('invitations accept joins by name; remove needs approval and warns that all keys are revoked', async () => {
    const accepted = await run('bob', ['invitations', 'accept', 'Shared']);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(accepted.stderr).toContain('Joined Shared');
    const { members } = await json('ada', ['members']);
    expect(members.find((m: { email: string }) => m.email === bob)).toMatchObject({ status: 'active' });

    const unapproved = await run('ada', ['members', 'remove', bob]);
    expect(unapproved.code).toBe(3);
    expect(unapproved.stderr).toMatch(/revokes ALL of their keys/);
    expect((await run('bob', ['whoami'])).code).toBe(0);

    const removed = await run('ada', ['members', 'remove', bob, '--yes']);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stderr).toMatch(/Removed bob@example\.com; their keys are revoked/);
    expect((await run('bob', ['whoami'])).code).toBe(4);
  });

  it('invitations decline withdraws nothing but the invitation; remove of an invitation touches no key', async () => {
    await login('bob', bob);
    expect((await run('ada', ['members', 'invite', bob])).code).toBe(0);
    const withdrawn = await run('ada', ['members', 'remove', bob, '--yes']);
    expect(withdrawn.code, withdrawn.stderr).toBe(0);
    expect(withdrawn.stderr).toContain('Withdrew the invitation');
    expect((await run('bob', ['whoami'])).code).toBe(0);

    expect((await run('ada', ['members', 'invite', bob])).code).toBe(0);
    const declined = await run('bob', ['invitations', 'decline', 'Shared']);
    expect(declined.code, declined.stderr).toBe(0);
    expect((await json('bob', ['invitations'])).invitations).toEqual([]);
    expect((await run('bob', ['invitations', 'accept', 'Shared'])).code).toBe(1);
  });

  it('a member who is not an owner cannot invite (403 forbidden, exit 1)', async () => {
    expect((await run('ada', ['members', 'invite', bob])).code).toBe(0);
    expect((await run('bob', ['invitations', 'accept', 'Shared'])).code).toBe(0);
    const result = await run('bob', ['--workspace', 'Shared', 'members', 'invite', 'eve@example.com']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('(forbidden)');
  });
});
