import { Argument, type Command } from 'commander';
import type { Context } from '../../context.js';
import { CliError, ExitCode, usageError } from '../../errors.js';
import type { Action } from '../action.js';
import { choices } from '../choices.js';

/** The settings `expense config` reads and writes, per profile (cli.md: the configuration file). */
const KEYS = {
  api_url: "the service's base URL, e.g. http://127.0.0.1:8787/v1",
  workspace: 'the workspace id SQL runs in (`expense use <name>` sets it by name and tells the server)',
} as const;
type Key = keyof typeof KEYS;

/** The setting's argument: `api_url`, `API-URL` and the like name the same one. */
const keyArgument = () =>
  choices(new Argument('<key>', 'the setting'), Object.keys(KEYS), (given) => {
    const key = given.toLowerCase().replace(/-/g, '_');
    return key in KEYS ? key : undefined;
  });

async function settingValue(ctx: Context, key: Key): Promise<string | undefined> {
  return key === 'api_url' ? ctx.apiUrl() : ctx.workspaceId();
}

export function registerConfig(program: Command, action: Action): void {
  const config = program
    .command('config')
    .description('Read and change settings of the profile (--profile): api_url, workspace')
    .addHelpText(
      'after',
      `\nSettings:\n${Object.entries(KEYS)
        .map(([k, v]) => `  ${k.padEnd(10)} ${v}`)
        .join('\n')}`,
    );

  config
    .command('get')
    .addArgument(keyArgument())
    .description('Print the value in use (with --api-url, EXPENSE_API_URL and the default applied)')
    .action(
      action(async (ctx, _options: object, [name]) => {
        const key = name as Key;
        const value = await settingValue(ctx, key);
        if (ctx.json) ctx.printJson({ [key]: value ?? null });
        else if (value !== undefined) ctx.print(value);
        else ctx.exitCode = ExitCode.failure;
      }),
    );

  config
    .command('set')
    .addArgument(keyArgument())
    .argument('<value>')
    .description("Store a value in the profile's configuration")
    .action(
      action(async (ctx, _options: object, [name, value]) => {
        const key = name as Key;
        if (key === 'api_url') {
          const { normaliseApiUrl } = await import('../../config/profiles.js');
          let url: string;
          try {
            url = normaliseApiUrl(value!);
          } catch (error) {
            throw usageError((error as Error).message);
          }
          if (new URL(url).pathname === '/')
            throw usageError(
              `${url} is the server's root, not the API.`,
              `The API lives under /v1: ${url}/v1`,
            );
          await ctx.updateProfile({ apiUrl: url });
        } else {
          if (!value!.trim()) throw usageError('The workspace id is empty.');
          await ctx.updateProfile({ workspaceId: value!.trim() });
        }
        if (!ctx.json)
          ctx.note(`${ctx.err.green('✓')} ${key} of profile ${ctx.profileName} is now ${value}.`);
      }),
    );

  config
    .command('list')
    .description('Every setting of the profile, as key=value')
    .action(
      action(async (ctx) => {
        const values: Record<string, string | null> = {};
        for (const key of Object.keys(KEYS) as Key[]) values[key] = (await settingValue(ctx, key)) ?? null;
        if (ctx.json) ctx.printJson(values);
        else
          ctx.print(
            Object.entries(values)
              .map(([k, v]) => `${k}=${v ?? ''}`)
              .join('\n'),
          );
      }),
    );
}

export function registerProfiles(program: Command, action: Action): void {
  const profiles = program
    .command('profiles')
    .description('The profiles (URL, key and workspace each); --profile <name> picks one')
    .action(
      action(async (ctx) => {
        const { DEFAULT_PROFILE } = await import('../../config/profiles.js');
        const { profiles: all } = await ctx.config.load();
        const names = Object.keys(all);
        if (!names.includes(DEFAULT_PROFILE)) names.unshift(DEFAULT_PROFILE);
        const rows = names.map((name) => ({
          name,
          current: name === ctx.profileName,
          apiUrl: all[name]?.apiUrl ?? null,
          email: all[name]?.email ?? null,
          workspaceId: all[name]?.workspaceId ?? null,
          signedIn: Boolean(all[name]?.credentialStore),
        }));
        if (ctx.json) {
          ctx.printJson({ profiles: rows });
          return;
        }
        const width = Math.max(...rows.map((r) => r.name.length));
        for (const r of rows)
          ctx.print(
            `${r.current ? '*' : ' '} ${r.name.padEnd(width)}  ${r.apiUrl ?? '(default URL)'}  ${
              r.email ?? 'not signed in'
            }${r.workspaceId ? `  workspace ${r.workspaceId}` : ''}`,
          );
      }),
    );

  profiles
    .command('add')
    .argument('<name>')
    .description('Create a profile with the URL in use (sign in to it with `expense --profile <name> login`)')
    .action(
      action(async (ctx, _options: object, [name]) => {
        const profile = name!.trim();
        if (!/^[A-Za-z0-9_.-]{1,64}$/.test(profile))
          throw usageError(`"${name}" is not a profile name (letters, digits, . _ -).`);
        if (await ctx.config.has(profile))
          throw new CliError('profile_exists', `Profile ${profile} exists already.`, ExitCode.usage, {
            hint: `Change its URL with \`expense --profile ${profile} config set api_url <url>\`.`,
          });
        const apiUrl = await ctx.apiUrl();
        await ctx.config.update(profile, { apiUrl });
        if (!ctx.json)
          ctx.note(
            `${ctx.err.green('✓')} Profile ${profile} uses ${apiUrl}. Sign in with \`expense --profile ${profile} login\`.`,
          );
        else ctx.printJson({ name: profile, apiUrl });
      }),
    );

  profiles
    .command('remove')
    .argument('<name>')
    .description('Forget a profile (sign out of it first)')
    .action(
      action(async (ctx, _options: object, [name]) => {
        const profile = name!.trim();
        if (!(await ctx.config.has(profile))) throw usageError(`There is no profile ${profile}.`);
        if ((await ctx.config.profile(profile)).credentialStore)
          throw usageError(
            `Profile ${profile} still holds a key.`,
            `Run \`expense --profile ${profile} logout\` first (it revokes the key on the server).`,
          );
        await ctx.config.remove(profile);
        if (!ctx.json) ctx.note(`${ctx.err.green('✓')} Removed profile ${profile}.`);
      }),
    );
}
