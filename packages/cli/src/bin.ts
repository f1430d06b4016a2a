import type { IO } from './context.js';
import { VERSION } from './version.js';

const args = process.argv.slice(2);
const io: IO = {
  // Getters: Node builds a standard stream when it is first touched, and most commands need one or two.
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
  env: process.env,
};

/** The command tree (commander and the commands' definitions), for everything but the version. */
async function main(): Promise<number> {
  // `expense --version` prints what commander would print, without loading commander.
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const { run } = await import('./program.js');
  return run(args, io);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `error: ${error instanceof Error ? error.message : String(error)} (internal_error)\n`,
    );
    process.exitCode = 1;
  },
);
