import { credentialsFile } from '../config/paths.js';
import { adoptSessionBus, probeSecretService } from './dbus.js';
import { FileStore } from './file-store.js';
import { KeychainStore } from './keychain-store.js';
import type { CredentialStore, StoreKind } from './store.js';

export function openStore(kind: StoreKind, env: NodeJS.ProcessEnv): CredentialStore {
  if (kind === 'file') return new FileStore(credentialsFile(env));
  if (process.platform === 'linux') adoptSessionBus(env);
  return new KeychainStore();
}

export type KeychainCheck = { ok: true } | { ok: false; reason: string };

/**
 * Whether the keychain really keeps secrets. On Linux the keyring library falls back, without telling, to
 * the kernel keyring (memory only) when no session bus is reachable, so the bus is asked first; then a
 * probe secret is written, read back and removed.
 */
export async function checkKeychain(
  env: NodeJS.ProcessEnv,
  platform = process.platform,
): Promise<KeychainCheck> {
  if (platform === 'linux') {
    adoptSessionBus(env);
    const bus = await probeSecretService(env);
    if (!bus.ok) return bus;
  }
  const store = new KeychainStore();
  // node:crypto loaded here, not by every command that reads a key
  const { randomBytes } = process.getBuiltinModule('node:crypto');
  const account = `probe-${randomBytes(8).toString('hex')}`;
  const secret = randomBytes(16).toString('hex');
  try {
    await store.set(account, secret);
    const back = await store.get(account);
    await store.delete(account);
    if (back !== secret)
      return { ok: false, reason: 'the keychain did not give back what was written to it' };
    return { ok: true };
  } catch (error) {
    const first = ((error as Error).message ?? String(error)).split('\n')[0];
    return { ok: false, reason: `the keychain cannot be used (${first})` };
  }
}

export interface ChosenStore {
  store: CredentialStore;
  /** Why the file store was chosen, when it was not asked for. */
  fallbackReason?: string;
}

/** The store `login` writes to: the keychain when it works, else the 0600 file; `--insecure-storage` forces the file. */
export async function chooseStore(env: NodeJS.ProcessEnv, insecureStorage: boolean): Promise<ChosenStore> {
  if (insecureStorage) return { store: openStore('file', env) };
  const check = await checkKeychain(env);
  if (check.ok) return { store: openStore('keychain', env) };
  return { store: openStore('file', env), fallbackReason: check.reason };
}
