export type StoreKind = 'keychain' | 'file';

/** Where a key is kept. Accounts are `<profile>@<api origin>`. */
export interface CredentialStore {
  readonly kind: StoreKind;
  /** Said at login and by whoami, e.g. "the Secret Service keyring". */
  readonly description: string;
  get(account: string): Promise<string | undefined>;
  set(account: string, secret: string): Promise<void>;
  /** true when something was removed. */
  delete(account: string): Promise<boolean>;
}

export const SERVICE = 'expense-cli';

export function accountName(profile: string, apiUrl: string): string {
  return `${profile}@${new URL(apiUrl).origin}`;
}
