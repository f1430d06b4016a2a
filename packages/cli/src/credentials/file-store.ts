import { stat } from 'node:fs/promises';
import { literal, object, record, string, validator } from '../checks/check.js';
import { readJson, writeJson } from '../config/json-file.js';
import type { CredentialStore } from './store.js';

interface CredentialsFile {
  version: 1;
  keys: Record<string, { apiKey: string; savedAt: string }>;
}

// A hand-written check (not zod): the key is read on every call.
const fileCheck = validator<CredentialsFile>(
  object({ version: literal(1), keys: record(object({ apiKey: string, savedAt: string })) }),
);

/**
 * Keys in a JSON file readable only by its owner (0600, directory 0700). Plain text on disk: used where no
 * working keychain exists, or when asked for with --insecure-storage.
 */
export class FileStore implements CredentialStore {
  readonly kind = 'file' as const;
  constructor(readonly path: string) {}

  get description(): string {
    return `${this.path} (a plain file with mode 0600)`;
  }

  private async load(): Promise<CredentialsFile> {
    const raw = await readJson(this.path);
    if (raw === undefined) return { version: 1, keys: {} };
    const parsed = fileCheck.safeParse(raw);
    if (!parsed.success)
      throw new Error(`${this.path} is not a valid credentials file; remove it and sign in again.`);
    if (process.platform !== 'win32') {
      const mode = (await stat(this.path)).mode & 0o777;
      if (mode & 0o077) {
        throw new Error(
          `${this.path} can be read by other users (mode ${mode.toString(8)}); run \`chmod 600 ${this.path}\` and try again.`,
        );
      }
    }
    return parsed.data;
  }

  async get(account: string): Promise<string | undefined> {
    return (await this.load()).keys[account]?.apiKey;
  }

  async set(account: string, secret: string): Promise<void> {
    const file = await this.load();
    file.keys[account] = { apiKey: secret, savedAt: new Date().toISOString() };
    await writeJson(this.path, file, 0o600);
  }

  async delete(account: string): Promise<boolean> {
    const file = await this.load();
    if (!(account in file.keys)) return false;
    delete file.keys[account];
    await writeJson(this.path, file, 0o600);
    return true;
  }
}
