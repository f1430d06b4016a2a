import { type CredentialStore, SERVICE } from './store.js';

type AsyncEntryClass = typeof import('@napi-rs/keyring').AsyncEntry;

let loaded: Promise<AsyncEntryClass> | undefined;
/** The native module is loaded on first use, so a platform without a prebuilt binary only loses the keychain. */
function entryClass(): Promise<AsyncEntryClass> {
  loaded ??= import('@napi-rs/keyring').then(
    (m) => m.AsyncEntry ?? (m as unknown as { default: { AsyncEntry: AsyncEntryClass } }).default.AsyncEntry,
  );
  return loaded;
}

/** How long a keychain call may take (a desktop may show an unlock prompt). */
const KEYCHAIN_TIMEOUT_MS = 60_000;

const withTimeout = <T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> =>
  work(AbortSignal.timeout(KEYCHAIN_TIMEOUT_MS));

export function keychainDescription(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'the macOS Keychain';
  if (platform === 'win32') return 'the Windows Credential Manager';
  return 'the system keyring (Secret Service)';
}

/** The operating system's credential store through @napi-rs/keyring, service `expense-cli`. */
export class KeychainStore implements CredentialStore {
  readonly kind = 'keychain' as const;
  readonly description = keychainDescription();

  async get(account: string): Promise<string | undefined> {
    const Entry = await entryClass();
    const value = await withTimeout((signal) => new Entry(SERVICE, account).getPassword(signal));
    return value ?? undefined;
  }

  async set(account: string, secret: string): Promise<void> {
    const Entry = await entryClass();
    await withTimeout((signal) => new Entry(SERVICE, account).setPassword(secret, signal));
  }

  async delete(account: string): Promise<boolean> {
    const Entry = await entryClass();
    try {
      return await withTimeout((signal) => new Entry(SERVICE, account).deleteCredential(signal));
    } catch {
      return false;
    }
  }
}
