/**
 * The PostgreSQL wire protocol of a simple query, for PGliteWorkerHost: the worker hands PGlite's raw answer
 * to the main thread (one transferred buffer), which turns it into results here. This keeps the database
 * thread's time for the database, and gives the same results as PGlite's own `exec` (one per statement,
 * values as text, the command tag's verb and count) and the same error fields.
 */
import type { SessionResult } from '../types.js';

/** A simple-query ('Q') message for `text`. */
export function simpleQueryMessage(text: string): Uint8Array {
  const body = Buffer.from(text, 'utf8');
  const message = Buffer.allocUnsafe(body.length + 6);
  message[0] = 0x51; // 'Q'
  message.writeInt32BE(body.length + 5, 1);
  body.copy(message, 5);
  message[message.length - 1] = 0;
  return message;
}

/** ErrorResponse field codes and the property each becomes (as pg and PGlite name them). */
const errorFields: Record<string, string> = {
  S: 'severity',
  C: 'code',
  D: 'detail',
  H: 'hint',
  P: 'position',
  p: 'internalPosition',
  q: 'internalQuery',
  W: 'where',
  s: 'schema',
  t: 'table',
  c: 'column',
  d: 'dataType',
  n: 'constraint',
  R: 'routine',
};

/**
 * The results of a simple query from the backend's messages: one per statement that completed, in order.
 * Throws the statement's error (an Error with code, position, ...) when the backend reported one.
 */
export function parseSimpleQueryResponse(data: Uint8Array): SessionResult[] {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const results: SessionResult[] = [];
  let fields: SessionResult['fields'] = [];
  let rows: SessionResult['rows'] = [];
  let error: Error | undefined;
  let at = 0;
  while (at + 5 <= buf.length) {
    const type = buf[at] as number;
    const end = at + 1 + buf.readInt32BE(at + 1);
    let p = at + 5;
    const cstring = () => {
      const zero = buf.indexOf(0, p);
      const value = buf.toString('utf8', p, zero);
      p = zero + 1;
      return value;
    };
    switch (type) {
      case 0x54: {
        // RowDescription: name, table oid, column, type oid, size, modifier, format
        const count = buf.readInt16BE(p);
        p += 2;
        fields = [];
        for (let i = 0; i < count; i++) {
          const name = cstring();
          fields.push({ name, dataTypeID: buf.readInt32BE(p + 6) });
          p += 18;
        }
        break;
      }
      case 0x44: {
        // DataRow
        const count = buf.readInt16BE(p);
        p += 2;
        const row: Record<string, unknown> = {};
        for (let i = 0; i < count; i++) {
          const length = buf.readInt32BE(p);
          p += 4;
          const name = fields[i]?.name ?? String(i);
          if (length < 0) row[name] = null;
          else {
            row[name] = buf.toString('utf8', p, p + length);
            p += length;
          }
        }
        rows.push(row);
        break;
      }
      case 0x43: {
        // CommandComplete: "SELECT 5", "INSERT 0 1", "SET", ...
        const tag = cstring();
        const words = tag.split(' ');
        const count = Number.parseInt(words[words.length - 1] as string, 10);
        results.push({
          command: words[0] as string,
          rowCount: Number.isNaN(count) ? null : count,
          fields,
          rows,
        });
        fields = [];
        rows = [];
        break;
      }
      case 0x45: {
        // ErrorResponse: the first error ends the query (later statements are not run)
        const props: Record<string, string> = {};
        let message = 'The statement failed.';
        while (p < end && buf[p] !== 0) {
          const code = String.fromCharCode(buf[p] as number);
          p += 1;
          const value = cstring();
          if (code === 'M') message = value;
          else {
            const prop = errorFields[code];
            if (prop) props[prop] = value;
          }
        }
        error ??= Object.assign(new Error(message), props);
        break;
      }
      // EmptyQueryResponse, ReadyForQuery, notices, parameter status: nothing to keep
    }
    at = end;
  }
  if (error) throw error;
  // Like PGlite's exec: an empty text still has one (empty) result.
  if (results.length === 0) results.push({ command: '', rowCount: null, fields: [], rows: [] });
  return results;
}
