// A new invitation is mailed to its address: who invited them to which workspace, and the console's link. An
// address invited again gets no second mail. Real HTTP on both engines.
import { readdir } from 'node:fs/promises';
import { call, lastMailTo, removeDir, tempDir } from '@expense/test-kit';
import { API_ROUTES } from '@expense/wire';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addWorkspace,
  createUser,
  ENGINES,
  type Live,
  startLive,
  type TestUser,
} from '../../sql/test/setup.js';

describe.each(ENGINES)('invitation mail on $name', (engine) => {
  let live: Live;
  let owner: TestUser;
  let outbox: string;

  beforeAll(async () => {
    outbox = await tempDir();
    live = await startLive(engine, { mailOutbox: outbox });
    owner = await createUser(live.db);
  });
  afterAll(async () => {
    await live?.close();
    await removeDir(outbox);
  });

  const invite = (workspaceId: string, email: string) =>
    call(live, API_ROUTES.addMember, { params: { workspaceId }, key: owner.apiKey, body: { email } });
  it('mails a new invitation once, with the workspace, the inviter and the console link', async () => {
    const ws = await addWorkspace(live.db, owner.userId, 'Flat share');
    const first = await invite(ws, 'new-flatmate@example.test');
    expect(first.status).toBe(201);
    expect(first.body.instructions.join(' ')).toMatch(/mailed to the address with a link to the console/);
    const mail = await lastMailTo(outbox, 'new-flatmate@example.test');
    expect(mail.subject).toContain('“Flat share”');
    expect(mail.subject).toContain(owner.email);
    expect(mail.text).toContain(`${live.origin}/console/`);
    // (The addresses are left out: a test user's address holds a UUID, which may have 8 digits in a row.)
    expect(mail.text.replace(/\S+@\S+/g, '')).not.toMatch(/\b\d{8}\b/); // no code, no key: a forwarded mail gives nobody access
    const before = (await readdir(outbox)).length;
    // The same address again is no new invitation: no second mail.
    expect((await invite(ws, 'new-flatmate@example.test')).status).toBe(200);
    expect((await readdir(outbox)).length).toBe(before);
  });
});
