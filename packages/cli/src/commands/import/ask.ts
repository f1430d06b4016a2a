import type { Context } from '../../context.js';
import { ask } from '../../prompt/prompt.js';

/**
 * What `expense import` asks of the workspace and of the person at the terminal: which of the workspace's
 * accounts the file is (matched to what the file names, else asked), and how a card file writes its charges
 * when the file cannot tell.
 */

interface KnownAccount {
  id: string;
  words: string;
}

async function workspaceAccounts(ctx: Context): Promise<KnownAccount[]> {
  const result = await (await ctx.api()).query(
    'SELECT DISTINCT account_id, display_name, note FROM accounts ORDER BY account_id LIMIT 100',
  );
  return (result.data.statements[0]?.rows ?? []).map((row) => ({
    id: String(row.account_id ?? ''),
    words: [row.account_id, row.display_name, row.note]
      .filter((v) => typeof v === 'string')
      .join(' ')
      .replace(/\s+/g, '')
      .toLowerCase(),
  }));
}

/** The workspace's account the file's own name for its account (IBAN, number, `*1234`) stands for, if exactly one. */
export function matchAccount(named: string, accounts: KnownAccount[]): string | undefined {
  const key = named.replace(/\s+/g, '').toLowerCase();
  const exact = accounts.find((a) => a.id.replace(/\s+/g, '').toLowerCase() === key);
  if (exact) return exact.id;
  const containing = accounts.filter((a) => a.words.includes(key));
  if (containing.length === 1) return containing[0]!.id;
  // A card or account number the file masks (`*1234`): the one account whose number ends so.
  const last4 = /^\*(\d{4})$/.exec(key)?.[1];
  if (last4) {
    const ending = accounts.filter((a) => a.id.replace(/\D/g, '').endsWith(last4));
    if (ending.length === 1) return ending[0]!.id;
  }
  return undefined;
}

/**
 * The account_id for a file imported without --account: the workspace's account that matches what the file names;
 * else the file's own name for it; else, on a terminal, the person picks one of the workspace's accounts or types
 * a new name. Undefined without a terminal (the import then asks for --account).
 */
export async function chooseAccount(ctx: Context, named: string | undefined): Promise<string | undefined> {
  const accounts = await workspaceAccounts(ctx);
  if (named !== undefined) {
    const matched = matchAccount(named, accounts);
    if (matched) {
      ctx.note(`The account: ${matched} (the file names ${named}; --account to say otherwise).`);
      return matched;
    }
    return named;
  }
  if (!ctx.interactive) return undefined;
  ctx.note('The file does not name its account.');
  if (accounts.length) ctx.note(accounts.map((a, i) => `  [${i + 1}] ${a.id}`).join('\n'));
  for (;;) {
    const answer = (
      await ask(
        ctx.io,
        accounts.length
          ? 'Which account? (a number, or a new account name) '
          : 'Which account is it? (a name) ',
      )
    ).trim();
    const picked = accounts[Number(answer) - 1];
    if (picked) return picked.id;
    if (answer !== '' && !/^\d+$/.test(answer)) return answer;
  }
}

/** A card file whose sign cannot be told: a terminal is asked; otherwise undefined (the import is refused). */
export async function chooseCharges(
  ctx: Context,
  example: string,
): Promise<'positive' | 'negative' | undefined> {
  if (!ctx.interactive) return undefined;
  ctx.note(
    `Which way this file's amounts point cannot be told from it${example ? ` (see ${example})` : ''}.`,
  );
  for (;;) {
    const answer = (await ask(ctx.io, 'Are purchases (spending) written as positive numbers? [y/n] '))
      .trim()
      .toLowerCase();
    if (answer === 'y' || answer === 'yes') return 'positive';
    if (answer === 'n' || answer === 'no') return 'negative';
  }
}
