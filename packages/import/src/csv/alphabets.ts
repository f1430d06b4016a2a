/**
 * The letters beyond ASCII of the languages written in Latin script (lower case), for telling two readings of a
 * legacy file apart whose letters are all letters: Latvian read as Windows-1252 has â, ç, î, ð and þ in one file, a
 * mix no language writes; read as Windows-1257 it has ā, ē, ī, š and ž, which Latvian does. Pure data and one
 * measure.
 */
const ALPHABETS: readonly string[] = [
  'äöüß', // German
  'àâæçéèêëîïôœùûüÿ', // French
  'áéíñóúü', // Spanish
  'áâãàçéêíóôõú', // Portuguese
  'àèéìíîòóùú', // Italian
  'àçèéíïòóúü', // Catalan
  'éëïóöü', // Dutch
  'åäöé', // Swedish
  'æøåé', // Danish, Norwegian
  'äöåšž', // Finnish
  'áðéíóúýþæö', // Icelandic
  'ąćęłńóśźż', // Polish
  'áčďéěíňóřšťúůýž', // Czech
  'áäčďéíĺľňóôŕšťúýž', // Slovak
  'áéíóöőúüű', // Hungarian
  'ăâîșțşţ', // Romanian (comma and cedilla forms)
  'čćđšž', // Croatian, Serbian, Bosnian, Slovene
  'ąčęėįšųūž', // Lithuanian
  'āčēģīķļņšūž', // Latvian
  'äõöüšž', // Estonian
  'âçğıîöşüû', // Turkish
  'çë', // Albanian
  'ċġħż', // Maltese
].map((letters) => letters.normalize('NFC'));

/** Latin letters of the European alphabets: Latin-1, Extended-A and -B, Extended Additional (not fullwidth ＡＢＣ). */
const LATIN = /[\u00c0-\u024f\u1e00-\u1eff]/u;

/**
 * How well the text's Latin letters beyond ASCII fit one language's alphabet: the largest share of them that one
 * language writes (1 when there are none, or all are one language's).
 */
export function alphabetFit(text: string): number {
  const counts = new Map<string, number>();
  let total = 0;
  for (const char of text.normalize('NFC').toLowerCase()) {
    if (!LATIN.test(char) || char === '\u00d7' || char === '\u00f7') continue;
    counts.set(char, (counts.get(char) ?? 0) + 1);
    total++;
  }
  if (total === 0) return 1;
  let best = 0;
  for (const alphabet of ALPHABETS) {
    let fits = 0;
    for (const [char, n] of counts) if (alphabet.includes(char)) fits += n;
    best = Math.max(best, fits);
  }
  return best / total;
}
