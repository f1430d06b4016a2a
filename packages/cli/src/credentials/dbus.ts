import { existsSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';

/**
 * Just enough of the D-Bus wire protocol to ask the session bus whether a Secret Service provider is
 * running or can be started: AUTH EXTERNAL, Hello, NameHasOwner and ListActivatableNames. The keyring
 * library silently falls back to the kernel keyring (memory only, lost at reboot) when it cannot reach a
 * session bus, so the CLI asks the bus itself before trusting the keychain.
 */

export const SECRET_SERVICE_NAME = 'org.freedesktop.secrets';

/**
 * Where systemd puts the session bus: `$XDG_RUNTIME_DIR/bus`, or `/run/user/<uid>/bus` when XDG_RUNTIME_DIR is
 * not set. Hosts that start `expense mcp` with the MCP SDK's default environment (HOME, LOGNAME, PATH, SHELL,
 * TERM, USER) pass neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR, so the uid's directory is the fallback;
 * a set XDG_RUNTIME_DIR is the user's runtime directory and is not second-guessed.
 */
export function systemdBusSocket(env: NodeJS.ProcessEnv): string | undefined {
  const path = busSocketPath(env);
  return path && existsSync(path) ? path : undefined;
}

function busSocketPath(env: NodeJS.ProcessEnv): string | undefined {
  const runtimeDir = env.XDG_RUNTIME_DIR?.trim();
  if (runtimeDir) return `${runtimeDir}/bus`;
  return process.getuid ? `/run/user/${process.getuid()}/bus` : undefined;
}

/**
 * Without DBUS_SESSION_BUS_ADDRESS, points it at systemd's session bus when there is one, so that the keyring
 * library (which reads the process environment when it connects) reaches the same bus the probe asks. `env` is
 * the command's environment: the process's own in the `expense` command, a test's object elsewhere (left alone
 * but for this variable). Returns the address set, or undefined when nothing changed.
 */
export function adoptSessionBus(env: NodeJS.ProcessEnv): string | undefined {
  if (env.DBUS_SESSION_BUS_ADDRESS?.trim()) return undefined;
  const socket = systemdBusSocket(env);
  if (!socket) return undefined;
  const address = `unix:path=${socket}`;
  env.DBUS_SESSION_BUS_ADDRESS = address;
  return address;
}

/** Socket paths of the session bus, from DBUS_SESSION_BUS_ADDRESS or the systemd default. */
export function sessionBusSockets(env: NodeJS.ProcessEnv): string[] {
  const address = env.DBUS_SESSION_BUS_ADDRESS?.trim();
  if (!address) {
    const fallback = systemdBusSocket(env);
    return fallback ? [fallback] : [];
  }
  const sockets: string[] = [];
  for (const entry of address.split(';')) {
    const colon = entry.indexOf(':');
    if (entry.slice(0, colon) !== 'unix') continue;
    const params = new Map(
      entry
        .slice(colon + 1)
        .split(',')
        .map((kv) => {
          const eq = kv.indexOf('=');
          return [kv.slice(0, eq), decodeURIComponent(kv.slice(eq + 1))] as const;
        }),
    );
    const path = params.get('path');
    const abstract = params.get('abstract');
    if (path) sockets.push(path);
    else if (abstract) sockets.push(`\u0000${abstract}`);
  }
  return sockets;
}

class Writer {
  bytes: number[] = [];
  align(n: number) {
    while (this.bytes.length % n) this.bytes.push(0);
  }
  u8(v: number) {
    this.bytes.push(v & 0xff);
  }
  u32(v: number) {
    this.align(4);
    this.bytes.push(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, (v >>> 24) & 0xff);
  }
  string(s: string) {
    const b = Buffer.from(s, 'utf8');
    this.u32(b.length);
    this.bytes.push(...b, 0);
  }
  signature(s: string) {
    this.u8(s.length);
    this.bytes.push(...Buffer.from(s, 'ascii'), 0);
  }
}

/** A METHOD_CALL message on org.freedesktop.DBus with at most one string argument. */
export function methodCall(serial: number, member: string, arg?: string): Buffer {
  const w = new Writer();
  w.bytes.push(0x6c, 1, 0, 1); // little-endian, METHOD_CALL, no flags, protocol 1
  w.u32(0); // body length, patched below
  w.u32(serial);
  const lengthAt = w.bytes.length;
  w.u32(0); // header field array length, patched below
  w.align(8);
  const fieldsStart = w.bytes.length;
  const field = (code: number, sig: string, write: () => void) => {
    w.align(8);
    w.u8(code);
    w.signature(sig);
    write();
  };
  field(1, 'o', () => w.string('/org/freedesktop/DBus'));
  field(2, 's', () => w.string('org.freedesktop.DBus'));
  field(3, 's', () => w.string(member));
  field(6, 's', () => w.string('org.freedesktop.DBus'));
  if (arg !== undefined) field(8, 'g', () => w.signature('s'));
  const fieldsLength = w.bytes.length - fieldsStart;
  w.align(8);
  const bodyStart = w.bytes.length;
  if (arg !== undefined) w.string(arg);
  const buf = Buffer.from(w.bytes);
  buf.writeUInt32LE(buf.length - bodyStart, 4);
  buf.writeUInt32LE(fieldsLength, lengthAt);
  return buf;
}

export interface Message {
  type: number;
  replySerial: number | undefined;
  body: Buffer;
  littleEndian: boolean;
}

/** Splits complete messages off the front of `buf`; returns them and the unconsumed rest. */
export function readMessages(buf: Buffer): { messages: Message[]; rest: Buffer } {
  const messages: Message[] = [];
  let at = 0;
  while (buf.length - at >= 16) {
    const le = buf[at] === 0x6c;
    const u32 = (o: number) => (le ? buf.readUInt32LE(o) : buf.readUInt32BE(o));
    const bodyLength = u32(at + 4);
    const fieldsLength = u32(at + 12);
    const headerEnd = at + 16 + fieldsLength + ((8 - ((16 + fieldsLength) % 8)) % 8);
    if (buf.length < headerEnd + bodyLength) break;
    let p = at + 16;
    let replySerial: number | undefined;
    const align = (n: number) => {
      p += (n - ((p - at) % n)) % n;
    };
    while (p < at + 16 + fieldsLength) {
      align(8);
      const code = buf[p++]!;
      const sigLength = buf[p++]!;
      const sig = buf.toString('ascii', p, p + sigLength);
      p += sigLength + 1;
      if (sig === 'u') {
        align(4);
        if (code === 5) replySerial = u32(p);
        p += 4;
      } else if (sig === 's' || sig === 'o') {
        align(4);
        p += 4 + u32(p) + 1;
      } else if (sig === 'g') {
        p += 1 + buf[p]! + 1;
      } else break; // no other field types are sent to us
    }
    messages.push({
      type: buf[at + 1]!,
      replySerial,
      body: buf.subarray(headerEnd, headerEnd + bodyLength),
      littleEndian: le,
    });
    at = headerEnd + bodyLength;
  }
  return { messages, rest: buf.subarray(at) };
}

/** The strings of an `as` body. */
export function readStringArray(m: Message): string[] {
  const u32 = (o: number) => (m.littleEndian ? m.body.readUInt32LE(o) : m.body.readUInt32BE(o));
  const end = 4 + u32(0);
  const out: string[] = [];
  let p = 4;
  while (p < end) {
    p += (4 - (p % 4)) % 4;
    const length = u32(p);
    out.push(m.body.toString('utf8', p + 4, p + 4 + length));
    p += 4 + length + 1;
  }
  return out;
}

function talk(socketPath: string, timeoutMs: number): Promise<{ owned: boolean; activatable: boolean }> {
  return new Promise((resolve, reject) => {
    const socket: Socket = createConnection(socketPath);
    const timer = setTimeout(() => finish(new Error('the session bus did not answer in time')), timeoutMs);
    let authenticated = false;
    let pending: Buffer = Buffer.alloc(0);
    const answers = new Map<number, Message>();
    const finish = (error?: Error, value?: { owned: boolean; activatable: boolean }) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(value!);
    };
    socket.on('error', (e) => finish(e));
    socket.on('connect', () => {
      const uid = String(process.getuid?.() ?? 0);
      socket.write(`\u0000AUTH EXTERNAL ${Buffer.from(uid).toString('hex')}\r\n`);
    });
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      if (!authenticated) {
        const end = pending.indexOf('\r\n');
        if (end === -1) return;
        const line = pending.toString('ascii', 0, end);
        pending = pending.subarray(end + 2);
        if (!line.startsWith('OK ')) return finish(new Error(`the session bus refused us: ${line}`));
        authenticated = true;
        socket.write(
          Buffer.concat([
            Buffer.from('BEGIN\r\n'),
            methodCall(1, 'Hello'),
            methodCall(2, 'NameHasOwner', SECRET_SERVICE_NAME),
            methodCall(3, 'ListActivatableNames'),
          ]),
        );
      }
      const { messages, rest } = readMessages(pending);
      pending = rest;
      for (const m of messages) if (m.replySerial !== undefined) answers.set(m.replySerial, m);
      const owner = answers.get(2);
      const activatable = answers.get(3);
      if (owner && activatable) {
        if (owner.type !== 2 || activatable.type !== 2)
          return finish(new Error('the session bus returned an error'));
        const readBool = owner.littleEndian ? owner.body.readUInt32LE(0) : owner.body.readUInt32BE(0);
        finish(undefined, {
          owned: readBool === 1,
          activatable: readStringArray(activatable).includes(SECRET_SERVICE_NAME),
        });
      }
    });
  });
}

export type BusProbe = { ok: true } | { ok: false; reason: string };

/** Whether a Secret Service provider runs on (or can be started by) the session bus. */
export async function probeSecretService(env: NodeJS.ProcessEnv, timeoutMs = 2000): Promise<BusProbe> {
  const sockets = sessionBusSockets(env);
  if (sockets.length === 0)
    return {
      ok: false,
      reason: `there is no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set, and no ${env.XDG_RUNTIME_DIR?.trim() ? '$XDG_RUNTIME_DIR/bus' : '/run/user/<uid>/bus'})`,
    };
  let lastError = '';
  for (const socket of sockets) {
    try {
      const { owned, activatable } = await talk(socket, timeoutMs);
      if (owned || activatable) return { ok: true };
      return {
        ok: false,
        reason: `no Secret Service (${SECRET_SERVICE_NAME}) runs on the D-Bus session bus`,
      };
    } catch (error) {
      lastError = (error as Error).message;
    }
  }
  return { ok: false, reason: `the D-Bus session bus cannot be reached (${lastError})` };
}
