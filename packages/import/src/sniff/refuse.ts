import { ImportError } from '../errors.js';

/**
 * What no bank exports and what would cost the reader without bound, refused before anything is parsed (coded,
 * nothing sent): a file over MAX_FILE_BYTES, a line over MAX_LINE_CHARS, an archive or other binary, XML with a
 * DOCTYPE (entity definitions are never expanded, and a statement has no need of them).
 */

export const MAX_FILE_BYTES = 32 * 1024 * 1024;
export const MAX_LINE_CHARS = 64 * 1024;

const refused = (code: string, message: string, hint: string) => new ImportError(code, message, 1, { hint });

/** Magic numbers of what is not a text export (the bytes at the start of the file). */
const BINARY: { bytes: number[]; what: string }[] = [
  { bytes: [0x50, 0x4b, 0x03, 0x04], what: 'a zip archive (or an .xlsx workbook)' },
  { bytes: [0x1f, 0x8b], what: 'a gzip archive' },
  { bytes: [0x25, 0x50, 0x44, 0x46], what: 'a PDF' },
  { bytes: [0xd0, 0xcf, 0x11, 0xe0], what: 'an Excel 97 workbook (.xls)' },
  { bytes: [0x52, 0x61, 0x72, 0x21], what: 'a RAR archive' },
  { bytes: [0x37, 0x7a, 0xbc, 0xaf], what: 'a 7-Zip archive' },
];

export function refuseBytes(bytes: Uint8Array, name: string): void {
  if (bytes.length > MAX_FILE_BYTES)
    throw refused(
      'import_too_large',
      `${name} is ${Math.round(bytes.length / 1024 / 1024)} MB: an export is read up to ${MAX_FILE_BYTES / 1024 / 1024} MB.`,
      'Nothing was sent. Export a shorter period from the bank and import each file.',
    );
  const magic = BINARY.find((b) => b.bytes.every((x, i) => bytes[i] === x));
  if (magic)
    throw refused(
      'import_unreadable',
      `${name} is ${magic.what}, not a bank export.`,
      'Nothing was sent. Download the statement as CSV, OFX/QFX, QIF, CAMT.053 or MT940 (or unpack the archive) and import that file.',
    );
}

/** Refuses decoded text that is binary, has an over-long line or an XML DOCTYPE. */
export function refuseText(text: string, name: string): void {
  const sample = text.slice(0, 65536);
  let control = 0;
  for (let i = 0; i < sample.length; i++) {
    const c = sample.charCodeAt(i);
    if (c === 0 || (c < 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12 && c !== 26)) control++;
  }
  if (control > 8 && control > sample.length / 200)
    throw refused(
      'import_unreadable',
      `${name} is binary, not a bank export.`,
      'Nothing was sent. Download the statement as CSV, OFX/QFX, QIF, CAMT.053 or MT940 and import that file.',
    );
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (end - start > MAX_LINE_CHARS)
      throw refused(
        'import_unreadable',
        `${name} has a line of ${end - start} characters: no bank writes one over ${MAX_LINE_CHARS}.`,
        'Nothing was sent. Check that this is the bank statement (CSV, OFX/QFX, QIF, CAMT.053 or MT940) and not another file.',
      );
    start = end + 1;
  }
  if (/<!DOCTYPE|<!ENTITY/i.test(text.slice(0, 1_000_000)))
    throw refused(
      'import_unreadable',
      `${name} is XML with a DOCTYPE (entity definitions): a bank statement has none, and they are not read.`,
      'Nothing was sent. Download the statement again from the bank (CAMT.053 or OFX 2 without a DOCTYPE).',
    );
}
