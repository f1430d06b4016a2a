/**
 * A small XML tokenizer for the ECB's gesmes files: elements, attributes, comments, processing instructions,
 * CDATA and character references, with the 1-based line of every token. It checks well-formedness (names,
 * quoting, matching end tags, one root) and refuses DOCTYPE, so no entity can expand.
 */

export interface XmlElement {
  name: string;
  /** The name without its namespace prefix (`gesmes:Envelope` -> `Envelope`). */
  local: string;
  attrs: Map<string, string>;
  line: number;
}

export type XmlEvent =
  | { type: 'open'; element: XmlElement; selfClosing: boolean }
  | { type: 'close'; name: string; line: number };

export class XmlSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
  }
}

const NAME = /[A-Za-z_][-A-Za-z0-9_.:]*/y;
const SPACE = /\s*/y;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(value: string, line: number): string {
  return value.replace(/&([^;&\s]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) throw new XmlSyntaxError(line, `"&" must start a reference like &amp;`);
    if (ref in ENTITIES) return ENTITIES[ref]!;
    const num = /^#(x[0-9A-Fa-f]+|[0-9]+)$/.exec(ref);
    if (!num) throw new XmlSyntaxError(line, `unknown entity &${ref};`);
    const code = num[1]!.startsWith('x') ? Number.parseInt(num[1]!.slice(1), 16) : Number(num[1]);
    if (code > 0x10ffff || code === 0) throw new XmlSyntaxError(line, `invalid character reference &${ref};`);
    return String.fromCodePoint(code);
  });
}

/** The name without its namespace prefix. */
export const localName = (name: string): string => name.slice(name.lastIndexOf(':') + 1);

export function* xmlEvents(text: string): Generator<XmlEvent> {
  let pos = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  const stack: string[] = [];
  let rootSeen = false;

  const advanceTo = (end: number) => {
    for (let i = pos; i < end; i++) if (text.charCodeAt(i) === 10) line++;
    pos = end;
  };
  const skipPast = (marker: string, what: string) => {
    const end = text.indexOf(marker, pos);
    if (end < 0) throw new XmlSyntaxError(line, `${what} is never closed (missing "${marker}")`);
    advanceTo(end + marker.length);
  };
  const readName = (what: string): string => {
    NAME.lastIndex = pos;
    const m = NAME.exec(text);
    if (!m) throw new XmlSyntaxError(line, `expected ${what}`);
    pos += m[0].length;
    return m[0];
  };
  const skipSpace = () => {
    SPACE.lastIndex = pos;
    advanceTo(pos + SPACE.exec(text)![0].length);
  };

  while (pos < text.length) {
    const lt = text.indexOf('<', pos);
    const textEnd = lt < 0 ? text.length : lt;
    const chars = text.slice(pos, textEnd);
    if (chars.trim() !== '' && stack.length === 0) {
      throw new XmlSyntaxError(line, 'text outside the root element');
    }
    advanceTo(textEnd);
    if (lt < 0) break;

    if (text.startsWith('<?', pos)) {
      skipPast('?>', 'a processing instruction');
    } else if (text.startsWith('<!--', pos)) {
      skipPast('-->', 'a comment');
    } else if (text.startsWith('<![CDATA[', pos)) {
      if (stack.length === 0) throw new XmlSyntaxError(line, 'CDATA outside the root element');
      skipPast(']]>', 'a CDATA section');
    } else if (text.startsWith('<!', pos)) {
      throw new XmlSyntaxError(line, 'DOCTYPE and other declarations are not allowed');
    } else if (text.startsWith('</', pos)) {
      const startLine = line;
      pos += 2;
      const name = readName('an element name after "</"');
      skipSpace();
      if (text[pos] !== '>') throw new XmlSyntaxError(line, `end tag </${name}> is not closed with ">"`);
      pos++;
      const open = stack.pop();
      if (open !== name) {
        throw new XmlSyntaxError(
          startLine,
          open ? `end tag </${name}> does not match <${open}>` : `end tag </${name}> has no start tag`,
        );
      }
      yield { type: 'close', name, line: startLine };
    } else {
      const startLine = line;
      pos++;
      const name = readName('an element name after "<"');
      if (stack.length === 0) {
        if (rootSeen) throw new XmlSyntaxError(startLine, `a second root element <${name}>`);
        rootSeen = true;
      }
      const attrs = new Map<string, string>();
      for (;;) {
        const before = pos;
        skipSpace();
        if (text.startsWith('/>', pos) || text[pos] === '>') break;
        if (pos === before) throw new XmlSyntaxError(line, `expected a space, "/>" or ">" in <${name}>`);
        const attr = readName(`an attribute name or ">" in <${name}>`);
        skipSpace();
        if (text[pos] !== '=') throw new XmlSyntaxError(line, `attribute ${attr} has no "=" and value`);
        pos++;
        skipSpace();
        const quote = text[pos];
        if (quote !== '"' && quote !== "'")
          throw new XmlSyntaxError(line, `the value of ${attr} must be quoted`);
        const end = text.indexOf(quote, pos + 1);
        if (end < 0) throw new XmlSyntaxError(line, `the value of ${attr} is never closed`);
        const raw = text.slice(pos + 1, end);
        if (raw.includes('<')) throw new XmlSyntaxError(line, `the value of ${attr} contains "<"`);
        if (attrs.has(attr)) throw new XmlSyntaxError(line, `attribute ${attr} appears twice in <${name}>`);
        attrs.set(attr, decode(raw, line));
        advanceTo(end + 1);
      }
      const selfClosing = text[pos] === '/';
      pos += selfClosing ? 2 : 1;
      if (!selfClosing) stack.push(name);
      yield { type: 'open', element: { name, local: localName(name), attrs, line: startLine }, selfClosing };
      if (selfClosing) yield { type: 'close', name, line: startLine };
    }
  }
  if (stack.length > 0) throw new XmlSyntaxError(line, `<${stack[stack.length - 1]}> is never closed`);
  if (!rootSeen) throw new XmlSyntaxError(line, 'no root element');
}
