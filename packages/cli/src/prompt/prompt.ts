import { cliError } from '../errors.js';

/** node:readline, loaded by the first prompt (most commands never ask). */
const createInterface = (options: import('node:readline').ReadLineOptions) =>
  process.getBuiltinModule('node:readline').createInterface(options);

export interface PromptIO {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export const cancelled = () => cliError('cancelled');

/** Asks one question on stderr and reads one line from the terminal; Ctrl-C or Ctrl-D cancel (exit 3). */
export function ask(io: PromptIO, question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: Boolean(io.stdin.isTTY) });
    let answered = false;
    rl.on('SIGINT', () => {
      io.stderr.write('\n');
      rl.close();
    });
    rl.on('close', () => {
      if (!answered) reject(cancelled());
    });
    rl.question(question, (answer) => {
      answered = true;
      rl.close();
      resolve(answer);
    });
  });
}

/** A yes/no question whose default is no. */
export async function confirm(io: PromptIO, question: string): Promise<boolean> {
  const answer = (await ask(io, `${question} [y/N] `)).trim().toLowerCase();
  return answer === 'y' || answer === 'yes';
}

/** Reads the first line of a non-terminal stdin (e.g. the sign-in code piped in). */
export function readLine(stdin: NodeJS.ReadableStream): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: stdin, terminal: false });
    let done = false;
    rl.once('line', (line) => {
      done = true;
      rl.close();
      resolve(line);
    });
    rl.once('close', () => {
      if (!done) resolve(undefined);
    });
    stdin.once('error', reject);
  });
}

/** Reads all of stdin (SQL piped in). */
export async function readAll(stdin: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
