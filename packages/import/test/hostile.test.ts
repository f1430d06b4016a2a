import { describe, expect, it } from 'vitest';
import { ImportError, type ImportHooks, prepareImport } from '../src/index.js';

// Files no bank writes, each refused with a code before anything is read into rows: too large, a line that never
// ends, XML entities (a billion laughs), binary, an archive. Nothing comes back to send.

const hooks: ImportHooks = {
  chooseDateFormat: async () => {
    throw new Error('not asked');
  },
  workspaceCurrency: async () => 'EUR',
  account: async () => 'hostile',
};

async function refusal(bytes: Uint8Array, fileName = 'hostile.csv'): Promise<ImportError> {
  try {
    await prepareImport({ fileName, bytes }, hooks);
  } catch (error) {
    if (error instanceof ImportError) return error;
    throw error;
  }
  throw new Error('imported');
}

const text = (s: string) => new TextEncoder().encode(s);

describe('hostile files are refused with a code', () => {
  it('100 MB', async () => {
    const e = await refusal(new Uint8Array(100 * 1024 * 1024).fill(0x61));
    expect(e.code).toBe('import_too_large');
    expect(e.hint).toContain('shorter period');
  });

  it('a 10 MB line', async () => {
    const e = await refusal(
      text(`Date,Amount,Description\n2026-03-01,-1.00,${'x'.repeat(10 * 1024 * 1024)}\n`),
    );
    expect(e.code).toBe('import_unreadable');
    expect(e.message).toContain('a line of');
  });

  it('XML entities (a billion laughs), as CAMT and as OFX', async () => {
    const laughs = `<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><Stmt><Ntry><AddtlNtryInf>&lol3;</AddtlNtryInf></Ntry></Stmt></BkToCstmrStmt></Document>`;
    expect((await refusal(text(laughs), 'statement.xml')).code).toBe('import_unreadable');
    const ofx = `<?xml version="1.0"?><!DOCTYPE OFX [<!ENTITY x SYSTEM "file:///etc/passwd">]><OFX><STMTTRN><NAME>&x;</NAME></STMTTRN></OFX>`;
    expect((await refusal(text(ofx), 'statement.ofx')).code).toBe('import_unreadable');
  });

  it('binary', async () => {
    const bytes = new Uint8Array(4096);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256;
    expect((await refusal(bytes, 'statement.csv')).code).toBe('import_unreadable');
  });

  it('a zip (or an .xlsx), a PDF, a gzip', async () => {
    const zip = Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 20, 0, 0, 0, 8, 0, ...text('Date,Amount\n')]);
    const e = await refusal(zip, 'export.csv');
    expect(e.code).toBe('import_unreadable');
    expect(e.message).toContain('zip');
    expect((await refusal(text('%PDF-1.7\n...'), 'statement.pdf')).code).toBe('import_unreadable');
    expect((await refusal(Uint8Array.from([0x1f, 0x8b, 8, 0, 1, 2, 3]), 'a.csv.gz')).code).toBe(
      'import_unreadable',
    );
  });

  it('a statement that does not add up is refused with the difference', async () => {
    const mt940 = `:20:X\n:25:NL91ABNA0417164300\n:60F:C260301EUR100,00\n:61:2603020302D10,00NTRFNONREF\n:86:/NAME/SHOP/\n:62F:C260302EUR95,00\n-\n`;
    const e = await refusal(text(mt940), 'statement.sta');
    expect(e.code).toBe('import_unbalanced');
    expect(e.message).toContain('a difference of 5.00');
  });
});
