import { run } from './program.js';

run(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
}).then(
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
