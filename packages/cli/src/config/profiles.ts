import {
  type Check,
  literal,
  object,
  oneOf,
  optional,
  record,
  string,
  validator,
  withDefault,
} from '../checks/check.js';
import { readJson, writeJson } from './json-file.js';
import { configFile } from './paths.js';

export const DEFAULT_API_URL = 'http://127.0.0.1:8787/v1';
export const DEFAULT_PROFILE = 'default';

export interface Profile {
  apiUrl?: string;
  workspaceId?: string;
  /** Where `login` put this profile's key. */
  credentialStore?: 'keychain' | 'file';
  userId?: string;
  email?: string;
}

// Hand-written checks (not zod): every command reads the configuration, and zod costs more to load than most
// commands spend.
const profileCheck: Check<Profile> = object({
  apiUrl: optional(string),
  workspaceId: optional(string),
  credentialStore: optional(oneOf(['keychain', 'file'])),
  userId: optional(string),
  email: optional(string),
});

export interface Config {
  version: 1;
  profiles: Record<string, Profile>;
}

const configCheck = validator<Config>(
  object({
    version: withDefault(literal(1), () => 1 as const),
    profiles: withDefault(record(profileCheck), () => ({})),
  }),
);

/** The CLI's configuration file: URLs and selected workspaces per profile, never a key. */
export class ConfigStore {
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  get path(): string {
    return configFile(this.env);
  }

  async load(): Promise<Config> {
    const raw = await readJson(this.path);
    if (raw === undefined) return { version: 1, profiles: {} };
    const parsed = configCheck.safeParse(raw);
    if (!parsed.success)
      throw new Error(`${this.path} is not a valid expense configuration; fix or remove it.`);
    return parsed.data;
  }

  async profile(name: string): Promise<Profile> {
    return (await this.load()).profiles[name] ?? {};
  }

  /** Whether the configuration holds a profile of this name. */
  async has(name: string): Promise<boolean> {
    return name in (await this.load()).profiles;
  }

  async remove(name: string): Promise<void> {
    const config = await this.load();
    delete config.profiles[name];
    await writeJson(this.path, config, 0o600);
  }

  /** Merges `patch` into a profile; `undefined` values remove a setting. */
  async update(name: string, patch: Partial<Record<keyof Profile, string | undefined>>): Promise<Profile> {
    const config = await this.load();
    const next: Record<string, unknown> = { ...(config.profiles[name] ?? {}) };
    for (const [key, value] of Object.entries(patch)) {
      if (value === undefined) delete next[key];
      else next[key] = value;
    }
    const profile = profileCheck(next);
    config.profiles[name] = profile;
    await writeJson(this.path, config, 0o600);
    return profile;
  }
}

/** `http://host:8787/v1/` → `http://host:8787/v1`; throws a readable error for anything not http(s). */
export function normaliseApiUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`"${raw}" is not a URL (expected something like ${DEFAULT_API_URL})`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`"${raw}" is not an http(s) URL`);
  url.hash = '';
  url.search = '';
  return url.toString().replace(/\/+$/, '');
}
