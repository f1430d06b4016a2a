import { z } from 'zod';

/** Where the ECB publishes its reference rates (eurofxref-daily.xml, eurofxref-hist-90d.xml, eurofxref-hist.zip). */
export const ECB_SOURCE_URL = 'https://www.ecb.europa.eu/stats/eurofxref/';
export const DEFAULT_FX_DAYS = 730;

const flag = z.union([z.boolean(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'boolean') return v;
  const text = v.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(text)) return true;
  if (['', '0', 'false', 'no', 'off'].includes(text)) return false;
  ctx.addIssue({ code: 'custom', message: 'expected 1/0, true/false, yes/no or on/off' });
  return z.NEVER;
});

/**
 * The FX worker's configuration fields, shaped like ServerConfigSchema's so the server can `.extend()` it.
 * `fxSourceUrl` is a folder laid out like the ECB's (ending in "/"), or one file (.xml, .csv or .zip).
 */
export const FxConfigSchema = z.object({
  fxSourceUrl: z
    .string()
    .default(ECB_SOURCE_URL)
    .pipe(z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' })),
  /** The daily table keeps this many days before the latest published rate (plus the days up to today). */
  fxDays: z.coerce.number().int().min(1).max(36_600).default(DEFAULT_FX_DAYS),
  /** Run `fx sync` on start and then daily (`expense-server start --fx-sync`). */
  fxSync: flag.default(false),
});

export type FxConfigInput = z.input<typeof FxConfigSchema>;
export type FxConfig = z.output<typeof FxConfigSchema>;

/** The environment variable behind each field (merge into CONFIG_ENV). */
export const FX_CONFIG_ENV = {
  fxSourceUrl: 'EXPENSE_FX_SOURCE_URL',
  fxDays: 'EXPENSE_FX_DAYS',
  fxSync: 'EXPENSE_FX_SYNC',
} as const satisfies Record<keyof FxConfigInput, string>;

/** Reads the FX fields from an environment (unset or empty variables take the defaults). */
export function fxConfigFromEnv(env: Record<string, string | undefined> = process.env): FxConfig {
  const input: Record<string, string> = {};
  for (const [field, name] of Object.entries(FX_CONFIG_ENV)) {
    const value = env[name];
    if (value !== undefined && value !== '') input[field] = value;
  }
  return FxConfigSchema.parse(input);
}
