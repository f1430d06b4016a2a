import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { CliError, ExitCode } from '../errors.js';
import { fileNotReadable } from '../output/file-error.js';

/** Reading an export: its bytes as text (UTF-8, Latin-1 on request or as a preset's fallback) and their digest. */
export async function readText(
  file: string,
  encoding: string | undefined,
  latin1Fallback: boolean,
): Promise<{ text: string; digest: string; encoding: string }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw fileNotReadable(file, error);
  }
  const digest = createHash('sha256').update(bytes).digest('hex');
  const decode = (name: 'utf-8' | 'latin1') => new TextDecoder(name, { fatal: true }).decode(bytes);
  if (encoding === 'latin1') return { text: decode('latin1'), digest, encoding: 'latin1' };
  try {
    return { text: decode('utf-8'), digest, encoding: 'utf8' };
  } catch {
    if (latin1Fallback && encoding === undefined)
      return { text: decode('latin1'), digest, encoding: 'latin1' };
    throw new CliError('invalid_csv', `${file} is not UTF-8 text.`, ExitCode.failure, {
      hint: 'Read it as Latin-1 with --encoding latin1 (or convert it: iconv -f latin1 -t utf-8).',
    });
  }
}

/** The line index of a preset's header (below the bank's preamble), or undefined. */
export function headerLineOf(text: string, header: RegExp): number | undefined {
  const index = text
    .replace(/^\uFEFF/, '')
    .split(/\r\n|\r|\n/)
    .findIndex((line) => header.test(line));
  return index === -1 ? undefined : index;
}
