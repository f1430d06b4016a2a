/**
 * An export's bytes as text: UTF-16 or UTF-8 (with or without a byte-order mark), else the legacy encoding its bytes
 * most likely are in (a bank's "ANSI" export: Windows-1252 in Western Europe and the Americas, Windows-1250 in
 * Central Europe, Windows-1251 for Cyrillic, Shift_JIS in Japan, GBK in China, EUC-KR in Korea, …). Pure: no Node
 * I/O, usable in a browser; decoding is the platform's TextDecoder (the WHATWG encodings).
 */
import { analyse } from 'chardet';
import { alphabetFit } from './alphabets.js';
import { headerWords } from './words.js';

/** `utf8`, `utf-16le`, `utf-16be`, or a legacy encoding by its WHATWG name (`windows-1252`, `shift_jis`, …). */
export type Encoding = string;

export interface Decoded {
  text: string;
  encoding: Encoding;
  /** The file started with a UTF-8 byte-order mark (removed from the text). */
  bom: boolean;
}

/** What a file that is not UTF-8 is read as when its bytes say nothing more: the commonest legacy encoding. */
const FALLBACK = 'windows-1252';
/** How much of a file the detector reads: a bank export's first rows say its script. */
const SAMPLE_BYTES = 16 * 1024;
/** chardet's confidence of a multi-byte encoding whose bytes are merely valid in it (no frequent characters seen). */
const MULTI_BYTE_WITHOUT_EVIDENCE = 10;
/**
 * How much surer than Latin-1 the detector must be of another encoding that reads the text as well: their letters
 * are the same bytes for most Western text, and a Western file read as Latin-2 would lose its à, è and ñ.
 */
const OVER_LATIN_1 = 1.25;
const SIBLINGS: Record<string, string> = {
  'iso-8859-2': 'windows-1250',
  'windows-1250': 'iso-8859-2',
  'iso-8859-5': 'windows-1251',
  'iso-8859-7': 'windows-1253',
  'windows-1253': 'iso-8859-7',
  'iso-8859-8': 'windows-1255',
  'iso-8859-6': 'windows-1256',
  'iso-8859-13': 'windows-1257',
  'iso-8859-4': 'windows-1257',
};
const MULTI_BYTE = new Set(['shift_jis', 'euc-jp', 'gbk', 'gb18030', 'big5', 'euc-kr']);

/** The WHATWG name of an encoding label the platform decodes; undefined for Unicode ones and unknown labels. */
function legacyName(label: string): string | undefined {
  try {
    const name = new TextDecoder(label).encoding;
    return name === 'utf-8' || name.startsWith('utf-16') || name === 'replacement' ? undefined : name;
  } catch {
    return undefined;
  }
}

/**
 * The legacy encoding of bytes that are not UTF-8. chardet (ICU's detector) weighs each encoding by how common the
 * characters it would read are in the languages written in it; a short export, mostly digits, leaves several close.
 * Of those, the one that reads the text as words wins (`misreadings`: no control or replacement character, no symbol
 * or letter of another script inside a word): Polish read as Latin-1 has ³ and ¿ in its words, Ukrainian read as
 * Hebrew has holes. A multi-byte encoding (Japanese, Chinese, Korean) counts only on evidence and where the bytes
 * are valid in it; Latin-1 (Windows-1252) is preferred unless another is clearly likelier, and is what is left.
 */
export function detectLegacyEncoding(bytes: Uint8Array): string {
  const sample = bytes.subarray(0, SAMPLE_BYTES);
  // The sample may end inside a character.
  const whole = sample.length === bytes.length ? sample : sample.subarray(0, sample.length - 4);
  const weights = new Map<string, number>([[FALLBACK, 0]]);
  for (const match of analyse(sample)) {
    const name = legacyName(match.name);
    if (name === undefined || (weights.get(name) ?? 0) > 0) continue;
    // A multi-byte encoding without evidence (a few characters, all merely valid in it) weighs nothing.
    if (MULTI_BYTE.has(name) && !decodes(whole, name)) continue;
    const weight =
      MULTI_BYTE.has(name) && match.confidence <= MULTI_BYTE_WITHOUT_EVIDENCE ? 0 : match.confidence;
    weights.set(name, name === FALLBACK ? weight * OVER_LATIN_1 : weight);
    // The ISO and Windows forms of one script differ in a few letters (Ľ is 0xBC in Windows-1250, 0xA5 in
    // ISO-8859-2): both are read, and the words decide.
    const sibling = SIBLINGS[name];
    if (sibling !== undefined && !weights.has(sibling)) weights.set(sibling, weight);
  }
  const readings = [...weights].map(([name, weight]) => {
    const text = decodeLegacy(whole, name);
    return { name, weight, misread: misreadings(text), fit: alphabetFit(text), headers: headerCells(text) };
  });
  // Fewest misread characters, then the letters that best fit one language's alphabet, then the most header words
  // the reader knows, then the detector's weight.
  readings.sort(
    (a, b) => a.misread - b.misread || b.fit - a.fit || b.headers - a.headers || b.weight - a.weight,
  );
  return readings[0]!.name;
}

/**
 * The legacy encoding a statement declares at its top: an XML prolog's `encoding="…"` (CAMT, OFX 2) or OFX 1's
 * `CHARSET:1251` header (a Windows code page by its number). Undefined when none is declared, or a Unicode one is
 * (the bytes are not UTF-8, so the declaration is wrong and the bytes decide).
 */
export function declaredEncoding(bytes: Uint8Array): string | undefined {
  const head = String.fromCharCode(...bytes.subarray(0, 1024));
  const xml = /^\s*<\?xml[^>]*\bencoding\s*=\s*["']([\w.:-]+)["']/i.exec(head);
  if (xml) return legacyName(xml[1]!);
  const ofx = /^\s*OFXHEADER\s*:[\s\S]*?^\s*CHARSET\s*:\s*([\w-]+)/im.exec(head);
  if (!ofx || /^(?:none|utf-?8)$/i.test(ofx[1]!)) return undefined;
  return legacyName(/^\d+$/.test(ofx[1]!) ? `windows-${ofx[1]}` : ofx[1]!);
}

/** How many cells of the text's first lines are header words the reader knows (`Açıklama`, not `Açýklama`). */
function headerCells(text: string): number {
  return text
    .split(/\r\n|\r|\n/, HEADER_LINES)
    .reduce((n, line) => n + headerWords(line.split(/[;,\t|]/).map((c) => c.replace(/^\s*"|"\s*$/g, ''))), 0);
}
/** A header stands within the first lines, below a bank's preamble. */
const HEADER_LINES = 30;

/** A run of letters and what sits inside it: white space, digits and ASCII punctuation end a word. */
const WORD = /[^\s\d!-/:-@[-`{-~]+/gu;
const ASCII_ONLY = /^[\x20-\x7e]*$/;
const LETTER = /\p{L}/u;
const ASCII_LETTER = /^[a-z]$/i;
const MARK = /\p{M}/u;
/** Punctuation a word holds: apostrophes, hyphens, a middle dot, the Japanese prolonged sound and middle dot. */
const IN_WORD_PUNCTUATION = /[\u2018\u2019\u02bc\u2010\u2011\u00b7\u30fb\u30fc]/u;
/** Characters no right reading puts anywhere: C1 controls, the replacement character. */
const HOLES = /[\u0080-\u009f\ufffd]/gu;
const SCRIPTS: readonly (readonly [string, RegExp])[] = [
  ['latin', /\p{Script=Latin}/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
  ['greek', /\p{Script=Greek}/u],
  ['hebrew', /\p{Script=Hebrew}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['thai', /\p{Script=Thai}/u],
  // Japanese writes Han and kana in one word, Korean may write Han among Hangul.
  ['east-asian', /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}ー]/u],
];
const scriptOf = (char: string) => SCRIPTS.find(([, re]) => re.test(char))?.[0];
/** East Asian text writes Latin letters into its words (ＪＲ東日本, GS25편의점). */
const mixable = (a: string, b: string) =>
  (a === 'latin' && b === 'east-asian') || (a === 'east-asian' && b === 'latin');

/**
 * How many characters of `text` only a wrong reading explains: controls and replacement characters, a character
 * beside a letter that is no letter, mark or a word's punctuation (³ ¹ ¿ £ ¤ “ • … in a word; £ before digits is
 * money), a letter of another script than the letter before it in its word, and one East Asian character between
 * two ASCII letters.
 */
export function misreadings(text: string): number {
  let count = text.match(HOLES)?.length ?? 0;
  for (const [word] of text.matchAll(WORD)) {
    if (ASCII_ONLY.test(word)) continue;
    const chars = [...word];
    let previous: string | undefined;
    chars.forEach((char, i) => {
      if (LETTER.test(char)) {
        const script = scriptOf(char);
        if (
          previous !== undefined &&
          script !== undefined &&
          script !== previous &&
          !mixable(previous, script)
        )
          count++;
        // One East Asian character inside a Latin word (`Dá` read as Shift_JIS: `D` + a kanji + `um`).
        else if (
          script === 'east-asian' &&
          ASCII_LETTER.test(chars[i - 1] ?? '') &&
          ASCII_LETTER.test(chars[i + 1] ?? '')
        )
          count++;
        previous = script ?? previous;
      } else if (
        !MARK.test(char) &&
        !IN_WORD_PUNCTUATION.test(char) &&
        (LETTER.test(chars[i - 1] ?? '') || LETTER.test(chars[i + 1] ?? ''))
      )
        count++;
    });
  }
  return count;
}

function decodes(bytes: Uint8Array, name: string): boolean {
  try {
    new TextDecoder(name, { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * Decodes with the encoding given, else detects it: UTF-16 by its mark or its zero bytes, UTF-8 when the bytes are
 * valid UTF-8, else the legacy encoding they are most likely in (detectLegacyEncoding). Throws a TypeError when
 * `forced` is utf8 and the bytes are not.
 */
export function decodeBytes(bytes: Uint8Array, forced?: Encoding): Decoded {
  const utf16 = forced === 'utf-16le' || forced === 'utf-16be' ? forced : utf16Of(bytes);
  if (utf16) {
    const hasBom = (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
    const text = new TextDecoder(utf16, { fatal: false }).decode(bytes.subarray(hasBom ? 2 : 0));
    return { text, encoding: utf16, bom: hasBom };
  }
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const body = bom ? bytes.subarray(3) : bytes;
  if (forced !== undefined && forced !== 'utf8')
    return { text: decodeLegacy(body, forced), encoding: forced, bom };
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(body), encoding: 'utf8', bom };
  } catch (error) {
    if (forced === 'utf8' || bom) throw error;
    const encoding = declaredEncoding(body) ?? detectLegacyEncoding(body);
    return { text: decodeLegacy(body, encoding), encoding, bom };
  }
}

/** Windows-1252 characters for 0x80–0x9F (the five undefined bytes map to their C1 control, as browsers do). */
const CP1252_HIGH =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

export function decodeWindows1252(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) {
    const chunk = bytes.subarray(i, i + 8192);
    out += String.fromCharCode(
      ...Array.from(chunk, (b) => (b >= 0x80 && b <= 0x9f ? CP1252_HIGH.charCodeAt(b - 0x80) : b)),
    );
  }
  return out;
}

/** Node 20's TextDecoder reads windows-1252 as ISO-8859-1 (0x80–0x9F as C1 controls, not € – ’ …): decoded here. */
const decodeLegacy = (bytes: Uint8Array, name: string): string =>
  name === FALLBACK ? decodeWindows1252(bytes) : new TextDecoder(name).decode(bytes);

/**
 * UTF-16 by its byte-order mark, or without one by where its zero bytes are: text in Latin script written as
 * UTF-16 has a zero in every other byte (the high byte of each code unit), at odd offsets little-endian.
 */
function utf16Of(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  const n = Math.min(bytes.length, 4096) & ~1;
  if (n < 8) return undefined;
  let even = 0;
  let odd = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) even++;
    if (bytes[i + 1] === 0) odd++;
  }
  const half = n / 2;
  if (odd > half * 0.6 && even < half * 0.05) return 'utf-16le';
  if (even > half * 0.6 && odd < half * 0.05) return 'utf-16be';
  return undefined;
}

/**
 * `--encoding` values: utf8 / utf-8, utf-16 (little-endian) / utf-16be, ansi (Windows-1252), or any label of the
 * WHATWG encodings the platform decodes (latin1, windows-1250, cp1251, shift_jis, sjis, gbk, euc-kr, …).
 */
export function encodingNamed(name: string): Encoding | undefined {
  const n = name.trim().toLowerCase().replace(/_/g, '-');
  if (n === 'utf8' || n === 'utf-8') return 'utf8';
  if (n === 'utf16' || n === 'utf-16' || n === 'utf16le' || n === 'utf-16le') return 'utf-16le';
  if (n === 'utf16be' || n === 'utf-16be') return 'utf-16be';
  return legacyName(n === 'ansi' ? FALLBACK : name.trim());
}

/** An encoding as a person reads its name: "UTF-8", "Central European (Windows-1250)", "UTF-16 (LE)". */
export function encodingTitle(encoding: Encoding): string {
  if (encoding === 'utf8') return 'UTF-8';
  if (encoding.startsWith('utf-16')) return `UTF-16 (${encoding.slice(7).toUpperCase()})`;
  return LEGACY_TITLES[encoding] ?? encoding;
}

const LEGACY_TITLES: Record<string, string> = {
  'windows-1252': 'Latin-1 (Windows-1252)',
  'windows-1250': 'Central European (Windows-1250)',
  'windows-1251': 'Cyrillic (Windows-1251)',
  'windows-1253': 'Greek (Windows-1253)',
  'windows-1254': 'Turkish (Windows-1254)',
  'windows-1257': 'Baltic (Windows-1257)',
  'iso-8859-2': 'Central European (ISO-8859-2)',
  'iso-8859-7': 'Greek (ISO-8859-7)',
  'koi8-r': 'Cyrillic (KOI8-R)',
  shift_jis: 'Japanese (Shift_JIS)',
  'euc-jp': 'Japanese (EUC-JP)',
  gbk: 'Chinese (GBK)',
  gb18030: 'Chinese (GB18030)',
  big5: 'Chinese (Big5)',
  'euc-kr': 'Korean (EUC-KR)',
};
