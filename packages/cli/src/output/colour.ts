export interface Colours {
  enabled: boolean;
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
}

/** Colour only on a terminal, never with NO_COLOR set to a non-empty value (no-color.org), never on TERM=dumb. */
export function colourEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (!stream.isTTY) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return env.TERM !== 'dumb';
}

export function createColours(enabled: boolean): Colours {
  const wrap = (open: number, close: number) => (s: string) =>
    enabled && s ? `\u001b[${open}m${s}\u001b[${close}m` : s;
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}
