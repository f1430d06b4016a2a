import { type Readable, Transform } from 'node:stream';
import type { FastifyRequest } from 'fastify';

/**
 * The text of a restore's body, kept beside its parsed value: the row images of the history are JSON numbers
 * (to_jsonb of a numeric: `12.50`, up to 30 digits), which JSON.parse turns into doubles (`12.5`, rounded), so
 * restore hands PostgreSQL their text instead, where a jsonb number keeps every digit and its scale.
 */
const bodyTexts = new WeakMap<FastifyRequest, string>();

/**
 * A preParsing stream that passes the body on unchanged and keeps its text for the request (bodyText). It counts
 * the bytes received as Fastify's body limit and content-length checks read them (receivedEncodedLength).
 */
export function keepBodyText(request: FastifyRequest, payload: Readable): Readable {
  const chunks: Buffer[] = [];
  let received = 0;
  const out: Transform & { receivedEncodedLength?: number } = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      received += chunk.length;
      out.receivedEncodedLength = received;
      done(null, chunk);
    },
    flush(done) {
      bodyTexts.set(request, Buffer.concat(chunks).toString('utf8'));
      chunks.length = 0;
      done();
    },
  });
  payload.on('error', (error) => out.destroy(error));
  return payload.pipe(out);
}

/** The body's text as keepBodyText kept it, if it did. */
export function bodyText(request: FastifyRequest): string | undefined {
  return bodyTexts.get(request);
}

const QUOTE = 34;
const BACKSLASH = 92;
const isOpen = (c: number) => c === 123 || c === 91;
const isClose = (c: number) => c === 125 || c === 93;

/** The index after the string that starts at `start` (a quote). */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const c = text.charCodeAt(i);
    if (Number.isNaN(c)) return text.length;
    if (c === BACKSLASH) i += 2;
    else if (c === QUOTE) return i + 1;
    else i++;
  }
}

/** The texts of the elements of the array that starts at `start` (a bracket), and the index after it. */
function elementTexts(text: string, start: number): [string[], number] {
  const out: string[] = [];
  let depth = 0;
  let from = start + 1;
  for (let i = start + 1; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      continue;
    }
    if (isOpen(c)) depth++;
    else if (isClose(c)) {
      if (depth === 0) {
        const last = text.slice(from, i).trim();
        if (last !== '') out.push(last);
        return [out, i + 1];
      }
      depth--;
    } else if (c === 44 && depth === 0) {
      out.push(text.slice(from, i).trim());
      from = i + 1;
    }
    i++;
  }
  return [out, text.length];
}

/**
 * The text of each element of the array under `key` of the top-level object of a JSON text (which JSON.parse has
 * read already, so it is valid JSON), or undefined without one. With the key twice, the last (as JSON.parse reads).
 */
export function topLevelArrayTexts(text: string, key: string): string[] | undefined {
  let found: string[] | undefined;
  let depth = 0;
  let expectKey = false;
  let lastKey: string | undefined;
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (depth === 1 && expectKey) {
        lastKey = JSON.parse(text.slice(i, end)) as string;
        expectKey = false;
      }
      i = end;
      continue;
    }
    if (depth === 1 && c === 91 && lastKey === key) {
      const [elements, end] = elementTexts(text, i);
      found = elements;
      i = end;
      continue;
    }
    if (isOpen(c)) {
      depth++;
      expectKey = depth === 1 && c === 123;
    } else if (isClose(c)) depth--;
    else if (c === 44 && depth === 1) expectKey = true;
    i++;
  }
  return found;
}
