import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { alphabetFit } from '../src/csv/alphabets.js';
import { declaredEncoding, detectLegacyEncoding, misreadings } from '../src/csv/detect-encoding.js';
import { decodeBytes, encodingNamed, type ImportHooks, type LedgerRow, prepareImport } from '../src/index.js';
import { LATIN_1_LANGUAGES, LEGACY_LANGUAGES, type LegacyLanguage } from './legacy-texts.js';

// Exports written in the legacy ("ANSI") encodings of their banks' countries: each is read back as the text it was,
// found from its bytes alone. Generated from the languages' phrases (legacy-texts.ts) with a fixed seed, so a run
// is the same run every time.

/** mulberry32: a small seeded generator, so the files are the same in every run. */
function seeded(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

function exportOf(lang: LegacyLanguage, rows: number, random: (n: number) => number): string {
  const lines = [lang.header.join(';')];
  let balance = 1000;
  for (let r = 0; r < rows; r++) {
    const amount = (random(2) ? -1 : 1) * (random(50_000) / 100);
    balance += amount;
    const day = String(random(28) + 1).padStart(2, '0');
    const money = (n: number) => n.toFixed(2).replace('.', ',');
    lines.push(
      `${day}.03.2026;${lang.phrases[random(lang.phrases.length)]};${money(amount)};${money(balance)}`,
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

const encoded = (text: string, encoding: string) => new Uint8Array(iconv.encode(text, encoding));

/** How many of `files` generated exports of 5 to 30 rows read back exactly. */
function readBack(lang: LegacyLanguage, files: number, seed: number): { right: number; wrong: string[] } {
  const random = seeded(seed);
  const wrong: string[] = [];
  for (let f = 0; f < files; f++) {
    const text = exportOf(lang, 5 + random(26), random);
    const decoded = decodeBytes(encoded(text, lang.encoding));
    if (decoded.text !== text) wrong.push(decoded.encoding);
  }
  return { right: files - wrong.length, wrong };
}

const hooks: ImportHooks = {
  workspaceCurrency: async () => 'EUR',
  chooseDateFormat: async (formats) => formats[0]!,
  account: async () => 'checking',
};

describe('a legacy encoding found from the bytes', () => {
  it.each(Object.entries(LATIN_1_LANGUAGES))(
    'keeps a Windows-1252 export in %s as Windows-1252',
    (_, lang) => {
      expect(readBack(lang, 60, 1)).toEqual({ right: 60, wrong: [] });
    },
  );

  it.each(Object.entries(LEGACY_LANGUAGES))('reads an export in %s in its encoding', (_, lang) => {
    expect(readBack(lang, 60, 2)).toEqual({ right: 60, wrong: [] });
  });

  it('reads a pound or euro sign before digits as money, not as a Polish or Baltic letter', () => {
    const pounds =
      '"Account Balance:","£1,182.34"\n"Date","Description","Paid out"\n"02 Mar 2026","TESCO","£12.50"\n';
    expect(decodeBytes(encoded(pounds, 'windows-1252'))).toEqual({
      text: pounds,
      encoding: 'windows-1252',
      bom: false,
    });
    // The euro sign is 0x80 in every Windows code page of Europe: any of them reads this file right.
    const euros = 'Datum;Text;Betrag\n02.03.2026;Miete;-€ 750,00\n';
    expect(decodeBytes(encoded(euros, 'windows-1252')).text).toBe(euros);
  });

  it('counts what only a wrong reading explains', () => {
    expect(misreadings('Płatność kartą ŻABKA Łódź')).toBe(0);
    expect(misreadings('P³atnoœæ kart¹ ¯ABKA £ódŸ')).toBeGreaterThanOrEqual(4);
    expect(misreadings('£1,182.34 and 12 € and N° 5')).toBe(1);
    expect(misreadings('ＪＲ東日本 GS25편의점 Sant’Anna Jean-Pierre')).toBe(0);
    expect(misreadings('Сільпоλ \ufffd \u0085')).toBe(3);
  });

  it("measures how well a text's letters fit one language's alphabet", () => {
    expect(alphabetFit('Pārskaitījums no Jāņa Bērziņa')).toBe(1);
    // The same bytes read as Windows-1252: â, î, ç, ò and þ in one text, which no language writes together.
    expect(alphabetFit('Pârskaitîjums no Jâòa Bçrziòa')).toBeLessThan(1);
    expect(alphabetFit('Grüße aus Köln, Café ÉVRY')).toBeLessThan(1);
    expect(alphabetFit('ＪＲ東日本 and plain ASCII')).toBe(1);
  });

  it('falls back to Windows-1252 when the bytes say nothing more', () => {
    expect(detectLegacyEncoding(new Uint8Array([0x80, 0x20, 0xe4]))).toBe('windows-1252');
  });

  it("takes the encoding a statement declares: OFX 1's CHARSET header, an XML prolog", () => {
    const ofx = [
      'OFXHEADER:100',
      'DATA:OFXSGML',
      'VERSION:102',
      'SECURITY:NONE',
      'ENCODING:USASCII',
      'CHARSET:1251',
      'COMPRESSION:NONE',
      '',
      '<OFX><STMTTRN><NAME>Пятёрочка</NAME></STMTTRN></OFX>',
    ].join('\r\n');
    expect(declaredEncoding(encoded(ofx, 'windows-1251'))).toBe('windows-1251');
    expect(decodeBytes(encoded(ofx, 'windows-1251'))).toEqual({
      text: ofx,
      encoding: 'windows-1251',
      bom: false,
    });
    const camt = '<?xml version="1.0" encoding="ISO-8859-2"?><Document><Nm>Łódź Spółka</Nm></Document>';
    expect(decodeBytes(encoded(camt, 'iso-8859-2'))).toEqual({
      text: camt,
      encoding: 'iso-8859-2',
      bom: false,
    });
    // A Unicode declaration on bytes that are not UTF-8 is wrong: the bytes decide.
    const wrong = '<?xml version="1.0" encoding="UTF-8"?><Nm>Müller</Nm>';
    expect(declaredEncoding(encoded(wrong, 'windows-1252'))).toBeUndefined();
    expect(decodeBytes(encoded(wrong, 'windows-1252')).text).toBe(wrong);
  });

  it('names an encoding by any of its labels', () => {
    expect(encodingNamed('UTF-8')).toBe('utf8');
    expect(encodingNamed('latin1')).toBe('windows-1252');
    expect(encodingNamed('ansi')).toBe('windows-1252');
    expect(encodingNamed('cp1250')).toBe('windows-1250');
    expect(encodingNamed('Shift_JIS')).toBe('shift_jis');
    expect(encodingNamed('sjis')).toBe('shift_jis');
    expect(encodingNamed('EUC-KR')).toBe('euc-kr');
    expect(encodingNamed('utf16')).toBe('utf-16le');
    expect(encodingNamed('klingon')).toBeUndefined();
    expect(encodingNamed('replacement')).toBeUndefined();
  });
});

describe('bank exports in legacy encodings, imported with no options', () => {
  it('a Japanese bank account in Shift_JIS: columns by their Japanese names, signs proved by the balance', async () => {
    const text = [
      '日付,摘要,摘要内容,支払い金額,預かり金額,差引残高,メモ',
      '2026/3/5,カード,ｾﾌﾞﾝｲﾚﾌﾞﾝ,540,,99460,',
      '2026/3/10,振込,ｷﾕｳﾖ ｶ)ｻﾝﾌﾟﾙ,,300000,399460,',
      '2026/3/12,口座振替,ﾃﾞﾝｷﾘﾖｳｷﾝ,8200,,391260,',
      '',
    ].join('\r\n');
    const prepared = await prepareImport(
      { fileName: 'mufg.csv', bytes: encoded(text, 'shift_jis'), currency: 'JPY' },
      hooks,
    );
    expect(prepared.notes[0]).toBe(
      'mufg.csv is not UTF-8: read as Japanese (Shift_JIS) (--encoding to say otherwise).',
    );
    expect(
      (prepared.rows as LedgerRow[]).map((r) => [r.ts.slice(0, 10), r.amount, r.kind, r.counterparty]),
    ).toEqual([
      ['2026-03-05', '-540', 'spend', 'ｾﾌﾞﾝｲﾚﾌﾞﾝ'],
      ['2026-03-10', '300000', 'income', 'ｷﾕｳﾖ ｶ)ｻﾝﾌﾟﾙ'],
      ['2026-03-12', '-8200', 'spend', 'ﾃﾞﾝｷﾘﾖｳｷﾝ'],
    ]);
  });

  it('a Polish account in Windows-1250 and a Russian one in Windows-1251 keep their payees letter for letter', async () => {
    const polish = [
      '"Data operacji","Typ transakcji","Kwota","Waluta","Saldo po transakcji","Opis transakcji"',
      '"2026-03-10","Przelew na konto","1000.00","PLN","1000.00","Nazwa nadawcy: ANNA NOWAK, Łódź"',
      '"2026-03-12","Płatność kartą","-23.99","PLN","976.01","Tytuł: ŻABKA Z1234 Kraków"',
    ].join('\n');
    const russian = [
      'Дата операции;Сумма операции;Валюта;Описание;Остаток',
      '10.03.2026;50000,00;RUB;Зачисление заработной платы;50000,00',
      '12.03.2026;-1250,00;RUB;Оплата в магазине Пятёрочка;48750,00',
    ].join('\n');
    const cases = [
      { file: 'pko.csv', text: polish, encoding: 'windows-1250', title: 'Central European (Windows-1250)' },
      { file: 'sber.csv', text: russian, encoding: 'windows-1251', title: 'Cyrillic (Windows-1251)' },
    ];
    const read = [];
    for (const { file, text, encoding, title } of cases) {
      const prepared = await prepareImport({ fileName: file, bytes: encoded(text, encoding) }, hooks);
      expect(prepared.notes[0]).toBe(`${file} is not UTF-8: read as ${title} (--encoding to say otherwise).`);
      read.push(...(prepared.rows as LedgerRow[]).map((r) => [r.amount, r.currency, r.counterparty]));
    }
    expect(read).toEqual([
      ['1000.00', 'PLN', 'Nazwa nadawcy: ANNA NOWAK, Łódź'],
      ['-23.99', 'PLN', 'Tytuł: ŻABKA Z1234 Kraków'],
      ['50000.00', 'RUB', 'Зачисление заработной платы'],
      ['-1250.00', 'RUB', 'Оплата в магазине Пятёрочка'],
    ]);
  });
});
