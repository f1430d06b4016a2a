import {
  AGENT_PREFIX,
  AGENT_ROUTES,
  API_ROUTES,
  OTP_CODE_LENGTH,
  type SendCodeData,
  type VerifyCodeData,
} from '@expense/wire';
import { ExpenseApi } from '../../api/index.js';
import { type Context, defaultLabel } from '../../context.js';
import { chooseStore, openStore } from '../../credentials/select.js';
import type { CredentialStore } from '../../credentials/store.js';
import { CliError, ExitCode, usageError } from '../../errors.js';
import { ApiError } from '../../http/api-error.js';
import { ask, confirm, readLine } from '../../prompt/prompt.js';
import type { LoginOptions } from './options.js';

interface LiveKey {
  api: ExpenseApi;
  connectionId: string;
  label: string;
  email: string;
}

/** The key this profile already holds, when the server still accepts it (a revoked or unreadable one is not live). */
async function liveStoredKey(ctx: Context): Promise<LiveKey | undefined> {
  const apiKey = await ctx.storedKey();
  if (!apiKey) return undefined;
  const api = new ExpenseApi(ctx.client, { apiUrl: await ctx.apiUrl(), apiKey });
  try {
    const { data } = await api.me();
    return {
      api,
      connectionId: data.connection.connectionId,
      label: data.connection.label,
      email: data.user.email,
    };
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

/** Signing in over a live key replaces it: ask first (or --force); without a way to ask, refuse. */
async function approveReplacing(ctx: Context, live: LiveKey, force: boolean | undefined): Promise<void> {
  if (force) return;
  const what = `This profile is signed in as ${live.email} with the key "${live.label}"`;
  if (!ctx.interactive) {
    throw new CliError('already_signed_in', `${what}; nothing was sent.`, ExitCode.usage, {
      hint: 'Add --force to sign in again and revoke that key, or use another profile (--profile <name>).',
    });
  }
  if (!(await confirm(ctx.io, `${what}. Sign in again and revoke that key?`))) {
    throw new CliError('approval_declined', 'Not signed in again; the current key stays.', ExitCode.declined);
  }
}

/** Revokes the key the new one replaced, with that key itself (it may belong to another user). */
async function revokeReplaced(live: LiveKey): Promise<string | undefined> {
  try {
    await live.api.revokeKey(live.connectionId);
    return undefined;
  } catch (error) {
    return `the previous key "${live.label}" (${live.connectionId}) could not be revoked: ${(error as Error).message} — revoke it with \`expense keys revoke ${live.connectionId}\``;
  }
}

const digitsOnly = (code: string) => code.replace(/[\s-]/g, '');
const looksLikeEmail = (s: string) => /^[^\s@]+@[^\s@]+$/.test(s);

async function askEmail(ctx: Context): Promise<string> {
  for (;;) {
    const email = (await ask(ctx.io, 'E-mail address: ')).trim();
    if (looksLikeEmail(email)) return email;
    ctx.note('That does not look like an e-mail address.');
  }
}

async function verify(
  ctx: Context,
  url: string,
  body: { code: string; otpSessionToken: string; label: string },
) {
  return ctx.client.call<VerifyCodeData>({
    method: AGENT_ROUTES.verifyCode.method,
    url,
    data: AGENT_ROUTES.verifyCode.data,
    body: { ...body, kind: 'cli' },
  });
}

/** Asks for the code on a terminal until it is accepted, or the server says the challenge is over. */
async function verifyInteractively(ctx: Context, url: string, token: string, label: string) {
  for (;;) {
    const code = digitsOnly(await ask(ctx.io, `${OTP_CODE_LENGTH}-digit code: `));
    if (!new RegExp(`^\\d{${OTP_CODE_LENGTH}}$`).test(code)) {
      ctx.note(`The code has ${OTP_CODE_LENGTH} digits.`);
      continue;
    }
    try {
      return await verify(ctx, url, { code, otpSessionToken: token, label });
    } catch (error) {
      const left = error instanceof ApiError ? error.details?.attemptsRemaining : undefined;
      if (
        error instanceof ApiError &&
        error.code === 'invalid_code' &&
        typeof left === 'number' &&
        left > 0
      ) {
        ctx.note(`That code is not right; ${left} attempt${left === 1 ? '' : 's'} left.`);
        continue;
      }
      throw error;
    }
  }
}

/** The code as one line on a non-terminal stdin. */
async function codeFromStdin(ctx: Context): Promise<string> {
  if (ctx.io.stdin.isTTY) {
    throw usageError(
      'The sign-in code is needed, and --no-input forbids asking for it.',
      'Pipe the code on stdin.',
    );
  }
  const line = await readLine(ctx.io.stdin);
  const code = digitsOnly(line ?? '');
  if (!new RegExp(`^\\d{${OTP_CODE_LENGTH}}$`).test(code)) {
    throw new CliError(
      'invalid_code',
      `Expected the ${OTP_CODE_LENGTH}-digit code as one line on stdin.`,
      ExitCode.failure,
    );
  }
  return code;
}

async function storeKey(ctx: Context, options: LoginOptions, apiKey: string) {
  const account = await ctx.account();
  const chosen = await chooseStore(ctx.io.env, Boolean(options.insecureStorage));
  let store: CredentialStore = chosen.store;
  let fallbackReason = chosen.fallbackReason;
  try {
    await store.set(account, apiKey);
  } catch (error) {
    if (store.kind === 'file') throw error;
    fallbackReason = `the keychain refused the key (${(error as Error).message.split('\n')[0]})`;
    store = openStore('file', ctx.io.env);
    await store.set(account, apiKey);
  }
  return { store, fallbackReason, account };
}

/** `expense login`: the e-mailed code, the key stored, the profile updated. */
export async function login(ctx: Context, options: LoginOptions): Promise<void> {
  let email = options.email?.trim();
  if (!email) {
    if (!ctx.interactive) {
      throw usageError('--email is required when the CLI cannot ask (no terminal, or --no-input).');
    }
    email = await askEmail(ctx);
  }
  const label = options.label?.trim() || defaultLabel();
  const live = await liveStoredKey(ctx);
  if (live) await approveReplacing(ctx, live, options.force);

  const discovery = await ctx.client.call({
    method: API_ROUTES.discovery.method,
    url: await ctx.url(API_ROUTES.discovery.path),
    data: API_ROUTES.discovery.data,
  });
  const sent = await ctx.client.call<SendCodeData>({
    method: AGENT_ROUTES.sendCode.method,
    url: discovery.data.auth.bootstrapUrl,
    data: AGENT_ROUTES.sendCode.data,
    body: { email },
  });
  const verifyUrl =
    sent.actions.find((a) => a.name === 'verify_code')?.url ??
    `${discovery.data.authBaseUrl.replace(/\/+$/, '')}${AGENT_PREFIX}${AGENT_ROUTES.verifyCode.path}`;
  ctx.note(`A sign-in code is on its way to ${email}.`);
  ctx.note('If it has not arrived in a minute or two, look in your spam or junk folder.');

  const token = sent.data.otpSessionToken;
  const verified = ctx.interactive
    ? await verifyInteractively(ctx, verifyUrl, token, label)
    : await verify(ctx, verifyUrl, { code: await codeFromStdin(ctx), otpSessionToken: token, label });

  const { user, connection, apiKey } = verified.data;
  const { store, fallbackReason } = await storeKey(ctx, options, apiKey);
  const revokeProblem = live ? await revokeReplaced(live) : undefined;
  const previous = await ctx.profile();
  await ctx.updateProfile({
    apiUrl: await ctx.apiUrl(),
    credentialStore: store.kind,
    userId: user.userId,
    email: user.email,
    ...(previous.userId && previous.userId !== user.userId ? { workspaceId: undefined } : {}),
  });

  if (ctx.json) {
    ctx.printJson({
      user,
      connection,
      credentialStore: { kind: store.kind, location: store.description },
      ...(live ? { replacedKey: { connectionId: live.connectionId, revoked: !revokeProblem } } : {}),
    });
  } else {
    ctx.note(`${ctx.err.green('✓')} Signed in as ${ctx.err.bold(user.email)} (key "${connection.label}").`);
    if (live && !revokeProblem) {
      ctx.note(`  The key it replaced ("${live.label}") is revoked.`);
    }
    if (revokeProblem) ctx.note(`${ctx.err.yellow('!')} ${revokeProblem}.`);
    if (fallbackReason) {
      ctx.note(`${ctx.err.yellow('!')} No working system keychain: ${fallbackReason}.`);
      ctx.note(`  The key is stored in ${store.description}; anyone who can read that file can use it.`);
    } else if (options.insecureStorage) {
      ctx.note(`  The key is stored in ${store.description}, as --insecure-storage asked.`);
    } else {
      ctx.note(`  The key is stored in ${store.description}.`);
    }
    if (ctx.io.env.EXPENSE_API_KEY?.trim()) {
      ctx.note(
        `${ctx.err.yellow('!')} EXPENSE_API_KEY is set, so commands keep using it instead of this key.`,
      );
    }
    ctx.note('Next: `expense workspaces` lists your workspaces; `expense use <workspace>` selects one.');
  }
}
