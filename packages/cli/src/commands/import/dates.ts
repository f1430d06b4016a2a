import type { DateFormat } from '@expense/import';
import type { Context } from '../../context.js';
import { usageError } from '../../errors.js';
import { ask } from '../../prompt/prompt.js';

const DATE_WORDS: Record<string, (d: number, m: number) => string> = {
  'MM/DD/YYYY': (a, b) => `${MONTHS[a - 1]} ${b}`,
  'DD/MM/YYYY': (a, b) => `${b > 0 ? MONTHS[b - 1] : '?'} ${a}`,
};
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** Dates that read two ways: a terminal is asked which order; otherwise it is wrong usage naming the option. */
export async function chooseDateFormat(
  ctx: Context,
  formats: DateFormat[],
  example: string,
): Promise<DateFormat> {
  const [a, b] = example.split('/').map(Number) as [number, number];
  const readings = formats.map((f) => `${f} (${DATE_WORDS[f]?.(a, b) ?? f})`).join(' or ');
  if (!ctx.interactive) {
    throw usageError(
      `The dates can be read two ways: ${example} is ${readings}; nothing was sent.`,
      `Say which with ${formats.map((f) => `--date-format ${f}`).join(' or ')}.`,
    );
  }
  ctx.note(`The dates can be read two ways: ${example} is ${readings}.`);
  for (;;) {
    const answer = (
      await ask(ctx.io, `Which order? ${formats.map((f, i) => `[${i + 1}] ${f}`).join('  ')} `)
    ).trim();
    const chosen = formats[Number(answer) - 1] ?? formats.find((f) => f === answer.toUpperCase());
    if (chosen) return chosen;
  }
}
