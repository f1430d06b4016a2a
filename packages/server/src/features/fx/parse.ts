import { parseEcbCsv } from './parse-csv.js';
import { parseEcbXml } from './parse-xml.js';
import type { ParseResult } from './types.js';

/** Picks the layout from the content (XML starts with "<"), so a file's name does not matter. */
export function parseEcbFile(text: string): ParseResult {
  return text
    .replace(/^\uFEFF/, '')
    .trimStart()
    .startsWith('<')
    ? parseEcbXml(text)
    : parseEcbCsv(text);
}
