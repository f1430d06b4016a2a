import { hostname } from 'node:os';
import { ExpenseApi } from './api/index.js';
import {
  ConfigStore,
  DEFAULT_API_URL,
  DEFAULT_PROFILE,
  normaliseApiUrl,
  type Profile,
} from './config/profiles.js';
import { openStore } from './credentials/select.js';
import { accountName, type StoreKind } from './credentials/store.js';
import { CliError, cliError, ExitCode, notSignedIn } from './errors.js';
import { ApiClient } from './http/client.js';
import { type Colours, colourEnabled, createColours } from './output/colour.js';
import type { PromptIO } from './prompt/prompt.js';
import { VERSION } from './version.js';

export interface IO extends PromptIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
}

/** The global options of cli.md, as commander parsed them (env defaults applied by commander). */
export interface GlobalOptions {
  apiUrl?: string;
  profile?: string;
  workspace?: string;
  json?: boolean;
  input?: boolean;
}

export type KeySource = 'env' | StoreKind;

export interface ResolvedKey {
  apiKey: string;
  source: KeySource;
}

/** Everything a command needs: streams, resolved settings, the HTTP client, credentials, output helpers. */
export class Context {
  readonly config: ConfigStore;
  readonly json: boolean;
  readonly noInput: boolean;
  readonly profileName: string;
  /** A non-zero exit code for a command that printed its output and still did not fully succeed. */
  exitCode: number | undefined;
  /** Colours for messages on stderr and for tables on stdout. */
  readonly err: Colours;
  readonly out: Colours;
  private profileCache: Profile | undefined;
  private clientCache: ApiClient | undefined;
  private apiUrlCache: string | undefined;
  private keyCache: ResolvedKey | undefined;

  constructor(
    readonly io: IO,
    readonly globals: GlobalOptions,
  ) {
    this.config = new ConfigStore(io.env);
    this.json = Boolean(globals.json);
    this.noInput =
      globals.input === false || ['1', 'true', 'yes'].includes((io.env.EXPENSE_NO_INPUT ?? '').toLowerCase());
    this.profileName = globals.profile?.trim() || DEFAULT_PROFILE;
    this.err = createColours(colourEnabled(io.stderr, io.env));
    this.out = createColours(colourEnabled(io.stdout, io.env));
  }

  /** Prompts are possible: stdin and stderr are terminals and --no-input is not in effect. */
  get interactive(): boolean {
    return Boolean(this.io.stdin.isTTY && this.io.stderr.isTTY) && !this.noInput;
  }

  async profile(): Promise<Profile> {
    this.profileCache ??= await this.config.profile(this.profileName);
    return this.profileCache;
  }

  async updateProfile(patch: Parameters<ConfigStore['update']>[1]): Promise<void> {
    this.profileCache = await this.config.update(this.profileName, patch);
  }

  /** `{base_url}`: --api-url / EXPENSE_API_URL, else the profile's, else the default. */
  async apiUrl(): Promise<string> {
    if (this.apiUrlCache) return this.apiUrlCache;
    const raw =
      this.globals.apiUrl?.trim() ||
      (await this.profile()).apiUrl ||
      (await this.inheritedApiUrl()) ||
      DEFAULT_API_URL;
    try {
      this.apiUrlCache = normaliseApiUrl(raw);
    } catch (error) {
      throw new CliError('usage_error', (error as Error).message, ExitCode.usage);
    }
    if (new URL(this.apiUrlCache).pathname === '/') {
      throw new CliError(
        'usage_error',
        `${this.apiUrlCache} is the server's root, not the API.`,
        ExitCode.usage,
        {
          hint: `The API lives under /v1: use --api-url ${this.apiUrlCache}/v1`,
        },
      );
    }
    return this.apiUrlCache;
  }

  /**
   * A profile not in the configuration yet takes the URL in use (the default profile's), so `--profile work
   * login` signs in to the same service rather than to the built-in default.
   */
  private async inheritedApiUrl(): Promise<string | undefined> {
    if (this.profileName === DEFAULT_PROFILE || (await this.config.has(this.profileName))) return undefined;
    return (await this.config.profile(DEFAULT_PROFILE)).apiUrl;
  }

  async url(path: string): Promise<string> {
    return `${await this.apiUrl()}${path}`;
  }

  async account(): Promise<string> {
    return accountName(this.profileName, await this.apiUrl());
  }

  /** --workspace / EXPENSE_WORKSPACE, else the profile's selection (sent as X-Workspace-Id). */
  async workspaceId(): Promise<string | undefined> {
    return this.globals.workspace?.trim() || (await this.profile()).workspaceId || undefined;
  }

  /** The key to use: EXPENSE_API_KEY, else the one login stored for this profile and API origin. */
  async key(): Promise<ResolvedKey> {
    this.keyCache ??= await this.readKey();
    return this.keyCache;
  }

  private async readKey(): Promise<ResolvedKey> {
    const fromEnv = this.io.env.EXPENSE_API_KEY?.trim();
    if (fromEnv) return { apiKey: fromEnv, source: 'env' };
    const kind = (await this.profile()).credentialStore;
    if (!kind) throw notSignedIn();
    let apiKey: string | undefined;
    const account = await this.account(); // a malformed URL is wrong usage (exit 2), not a key-store failure
    let unreadable: Error | undefined;
    try {
      apiKey = await openStore(kind, this.io.env).get(account);
    } catch (error) {
      unreadable = error as Error;
    }
    if (apiKey) return { apiKey, source: kind };
    // A keychain out of reach (an MCP host starts `expense mcp` without the session bus): the 0600 file, as gh
    // falls back to hosts.yml, when a login with --insecure-storage put a key for this account there.
    if (kind === 'keychain') {
      const fromFile = await openStore('file', this.io.env)
        .get(account)
        .catch(() => undefined);
      if (fromFile) return { apiKey: fromFile, source: 'file' };
    }
    if (unreadable) {
      throw cliError('credential_store_unavailable', {
        message: `Cannot read the key: ${unreadable.message}`,
      });
    }
    throw notSignedIn(
      kind === 'keychain'
        ? `No key for ${account} in the keychain (is the keyring unlocked and reachable from this session? With no session bus, \`expense login --insecure-storage\` keeps it in a 0600 file). Run \`expense login\`.`
        : undefined,
    );
  }

  /** The key login stored for this profile and API origin (never EXPENSE_API_KEY), or undefined. */
  async storedKey(): Promise<string | undefined> {
    const kind = (await this.profile()).credentialStore;
    if (!kind) return undefined;
    try {
      return (await openStore(kind, this.io.env).get(await this.account())) || undefined;
    } catch {
      return undefined;
    }
  }

  get client(): ApiClient {
    this.clientCache ??= new ApiClient({
      userAgent: `expense-cli/${VERSION} node/${process.versions.node}`,
      onWait: (seconds) =>
        this.note(`Rate limited by the server; waiting ${seconds}s as it asks (Retry-After).`),
    });
    return this.clientCache;
  }

  /** The typed API for this profile: its URL, its key, and the workspace for SQL (--workspace or the profile's). */
  async api(): Promise<ExpenseApi> {
    const { apiKey } = await this.key();
    const workspaceId = await this.workspaceId();
    return new ExpenseApi(this.client, {
      apiUrl: await this.apiUrl(),
      apiKey,
      ...(workspaceId ? { workspaceId } : {}),
    });
  }

  async close(): Promise<void> {
    await this.clientCache?.close();
  }

  /** Data on stdout. */
  print(text: string): void {
    this.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  }

  printJson(value: unknown): void {
    this.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** Messages on stderr. */
  note(text: string): void {
    this.io.stderr.write(`${text}\n`);
  }

  /** Terminal width for tables on stdout; unlimited when stdout is not a terminal. */
  get tableWidth(): number | undefined {
    return this.io.stdout.isTTY ? this.io.stdout.columns || 80 : undefined; // 0 when the terminal does not say
  }
}

export const defaultLabel = () => `expense-cli on ${hostname()}`;
