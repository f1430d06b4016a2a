import type { FileFormat } from '../sniff/format.js';
import { readCamt } from './camt.js';
import { readMt940 } from './mt940.js';
import { readOfx } from './ofx.js';
import { readQif } from './qif.js';
import type { Statement } from './statement.js';

/** A statement file's text read by its format's reader. */
export function readStatement(format: Exclude<FileFormat, 'csv'>, text: string): Statement {
  switch (format) {
    case 'ofx':
      return readOfx(text);
    case 'qif':
      return readQif(text);
    case 'camt':
      return readCamt(text);
    case 'mt940':
      return readMt940(text);
  }
}
