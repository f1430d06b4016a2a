import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  methodCall,
  probeSecretService,
  readMessages,
  sessionBusSockets,
  systemdBusSocket,
} from '../dbus.js';
import { FileStore } from '../file-store.js';
import { accountName } from '../store.js';

describe('FileStore', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'expense-cli-creds-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps keys per account in a 0600 file inside a 0700 directory', async () => {
    const path = join(dir, 'expense', 'credentials.json');
    const store = new FileStore(path);
    await store.set('default@http://a', 'exp_live_one');
    await store.set('work@http://b', 'exp_live_two');
    expect(await store.get('default@http://a')).toBe('exp_live_one');
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'expense'))).mode & 0o777).toBe(0o700);
    expect(await store.delete('default@http://a')).toBe(true);
    expect(await store.delete('default@http://a')).toBe(false);
    expect(JSON.parse(await readFile(path, 'utf8')).keys).toHaveProperty(['work@http://b']);
  });

  it('refuses a credentials file other users can read', async () => {
    const path = join(dir, 'credentials.json');
    const store = new FileStore(path);
    await store.set('a', 'exp_live_x');
    await chmod(path, 0o644);
    await expect(store.get('a')).rejects.toThrow(/chmod 600/);
  });
});

describe('accountName', () => {
  it('is <profile>@<api origin>', () => {
    expect(accountName('default', 'https://api.example.com/v1')).toBe('default@https://api.example.com');
  });
});

describe('D-Bus probe', () => {
  it('reads socket paths from the bus address', () => {
    expect(sessionBusSockets({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1/bus,guid=abc' })).toEqual([
      '/run/user/1/bus',
    ]);
    expect(sessionBusSockets({ DBUS_SESSION_BUS_ADDRESS: 'tcp:host=x;unix:abstract=/tmp/dbus-x' })).toEqual([
      '\u0000/tmp/dbus-x',
    ]);
    expect(sessionBusSockets({})).toEqual([]);
  });

  it('writes method calls it can read back', () => {
    const { messages, rest } = readMessages(
      Buffer.concat([methodCall(7, 'NameHasOwner', 'org.freedesktop.secrets'), methodCall(8, 'Hello')]),
    );
    expect(rest.length).toBe(0);
    expect(messages).toHaveLength(2);
    expect(messages[0]!.type).toBe(1);
    expect(messages[0]!.body.readUInt32LE(0)).toBe('org.freedesktop.secrets'.length);
    expect(messages[1]!.body.length).toBe(0);
  });

  it('takes a set XDG_RUNTIME_DIR as the only place of the systemd bus (not also /run/user/<uid>)', async () => {
    const runtime = await mkdtemp(join(tmpdir(), 'expense-cli-run-'));
    try {
      expect(systemdBusSocket({ XDG_RUNTIME_DIR: runtime })).toBeUndefined();
      await writeFile(join(runtime, 'bus'), '');
      expect(systemdBusSocket({ XDG_RUNTIME_DIR: runtime })).toBe(join(runtime, 'bus'));
    } finally {
      await rm(runtime, { recursive: true, force: true });
    }
  });

  it('says plainly when there is no session bus', async () => {
    const runtime = await mkdtemp(join(tmpdir(), 'expense-cli-run-'));
    try {
      expect(await probeSecretService({ XDG_RUNTIME_DIR: runtime })).toEqual({
        ok: false,
        reason:
          'there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set, and no $XDG_RUNTIME_DIR/bus)',
      });
    } finally {
      await rm(runtime, { recursive: true, force: true });
    }
    const dead = await probeSecretService({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/bus' });
    expect(dead.ok).toBe(false);
  });
});
