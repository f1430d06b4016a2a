/**
 * Which legacy encoding a file's bytes are in, when they are not UTF-8 or UTF-16: the one the file declares, else the
 * reading that chardet weighs likely and that reads the text as words of one language. Pure.
 */
import { analyse } from 'chardet';
import { alphabetFit } from './alphabets.js';
import { decodeLegacy, FALLBACK, legacyName } from './legacy.js';
import { headerWords } from './words.js';

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
