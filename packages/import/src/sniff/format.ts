import { looksLikeCamt } from '../statements/camt.js';
import { looksLikeMt940 } from '../statements/mt940.js';
import { looksLikeOfx } from '../statements/ofx.js';
import { looksLikeQif } from '../statements/qif.js';

export type FileFormat = 'csv' | 'ofx' | 'qif' | 'camt' | 'mt940';

/** The format of a decoded export, from its first characters (its name is not trusted). */
export function formatOf(text: string): FileFormat {
  const head = text.slice(0, 20000).replace(/^\uFEFF/, '');
  if (looksLikeOfx(head)) return 'ofx';
  if (looksLikeCamt(head)) return 'camt';
  if (looksLikeQif(head)) return 'qif';
  if (looksLikeMt940(head)) return 'mt940';
  return 'csv';
}
