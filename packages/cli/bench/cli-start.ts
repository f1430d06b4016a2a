// The CLI's start-up (issue 28): `node -e 0`, `expense --version` and `expense query` against a running built
// server, spawned one after the other in interleaved rounds, beside the server's own answer to the same query
// (POST /v1/sql/query on a new connection, as the CLI opens one). Goals: `--version` ≤ 1.5x of `node -e 0`;
// `query` adds ≤ 2x of `node -e 0` over the server's answer. Prints a Markdown table; `pnpm bench` keeps it
// in bench-results/cli-start.txt for docs/benchmarks.md.
//   pnpm --filter "@expense/server..." --filter @expense/cli build
//   node --conditions=@expense/source --import tsx packages/cli/bench/cli-start.ts [--rounds 15]
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from '@expense/test-kit';
import { CLI_BIN, cli, loginWithoutTty, openSandbox } from '../test/e2e/harness.js';

const i = process.argv.indexOf('--rounds');
const rounds = i >= 0 ? Number(process.argv[i + 1]) : 15;
const SQL = 'SELECT 1 AS one';

// GNU time, where present, adds the CPU time (user + system) of each process: on a loaded machine the wall
// time is mostly waiting for a core, the CPU time is what the process itself costs.
const TIME = '/usr/bin/time';
const cpuFile = existsSync(TIME)
  ? join(await mkdtemp(join(tmpdir(), 'expense-cli-bench-')), 'cpu')
  : undefined;

interface Timing {
  wallMs: number;
  cpuMs: number | undefined;
}

/** Wall (and CPU) time of one process from spawn to exit, in ms; fails on a non-zero exit. */
function timed(args: string[], env: NodeJS.ProcessEnv): Promise<Timing> {
  const started = performance.now();
  const [command, argv] = cpuFile
    ? [TIME, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...args]]
    : [process.execPath, args];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', async (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`${args.join(' ')}: exit ${code}`));
      if (!cpuFile) return resolve({ wallMs, cpuMs: undefined });
      const [user, system] = (await readFile(cpuFile, 'utf8')).trim().split(/\s+/).map(Number);
      resolve({ wallMs, cpuMs: ((user ?? 0) + (system ?? 0)) * 1000 });
    });
  });
}

/** The server's answer to the query on a new connection (what the CLI does once), in ms. */
function answer(apiUrl: string, apiKey: string, workspaceId: string): Promise<number> {
  const body = JSON.stringify({ sql: SQL });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${apiUrl}/sql/query`,
      {
        method: 'POST',
        agent: false,
        headers: {
          authorization: `ApiKey ${apiKey}`,
          'x-workspace-id': workspaceId,
          'content-type': 'application/json',
        },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode === 200
            ? resolve(performance.now() - started)
            : reject(new Error(`${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const sandbox = await openSandbox('expense-cli-bench-', { database: 'postgres' });
try {
  const { env, server } = sandbox;
  const login = await loginWithoutTty(env, server.outbox, 'bench@example.com', new Set());
  if (login.code !== 0) throw new Error(`login failed: ${login.stderr}`);
  const created = await cli(['--json', 'workspaces', 'create', 'Bench'], env);
  const workspaceId = (JSON.parse(created.stdout) as { workspace: { workspaceId: string } }).workspace
    .workspaceId;
  await cli(['use', workspaceId], env);
  // No D-Bus session here: login keeps the key in the 0600 file.
  const credentials = JSON.parse(
    await readFile(join(env.XDG_CONFIG_HOME!, 'expense', 'credentials.json'), 'utf8'),
  ) as { keys: Record<string, { apiKey: string }> };
  const apiKey = Object.values(credentials.keys)[0]!.apiKey;

  const samples = {
    node: [] as Timing[],
    version: [] as Timing[],
    query: [] as Timing[],
    answer: [] as number[],
  };
  // One warm-up round (file cache, the server's first query), then interleaved rounds.
  for (let round = -1; round < rounds; round++) {
    const node = await timed(['-e', '0'], env);
    const version = await timed([CLI_BIN, '--version'], env);
    const query = await timed([CLI_BIN, 'query', SQL], env);
    const served = await answer(server.apiUrl, apiKey, workspaceId);
    if (round < 0) continue;
    samples.node.push(node);
    samples.version.push(version);
    samples.query.push(query);
    samples.answer.push(served);
  }
  const wall = (xs: Timing[]) => median(xs.map((x) => x.wallMs));
  // GNU time prints CPU seconds with two decimals: the mean over the rounds smooths the 10 ms steps.
  const cpu = (xs: Timing[]) =>
    cpuFile ? xs.reduce((sum, x) => sum + (x.cpuMs ?? 0), 0) / xs.length : undefined;
  const m = {
    node: wall(samples.node),
    version: wall(samples.version),
    query: wall(samples.query),
    answer: median(samples.answer),
  };
  const c = { node: cpu(samples.node), version: cpu(samples.version), query: cpu(samples.query) };
  const versionRatio = m.version / m.node;
  const queryAdds = (m.query - m.answer) / m.node;
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const cpuText = (v: number | undefined, base: number | undefined) =>
    v === undefined || base === undefined ? '–' : `${ms(v)} (${(v / base).toFixed(2)}x)`;
  const verdict = (ok: boolean) => (ok ? '**met**' : '**not met**');
  process.stdout.write(
    [
      `${rounds} interleaved rounds, medians of wall time (the goals), mean CPU time (user + system, GNU time), ${process.version}, ${new Date().toISOString().slice(0, 16)} UTC.`,
      '',
      '| measure | median wall time | ratio (wall) | goal | | mean CPU time (ratio to `node -e 0`) |',
      '|---|---|---|---|---|---|',
      `| \`node -e 0\` | ${ms(m.node)} | 1x | | | ${cpuText(c.node, c.node)} |`,
      `| \`expense --version\` | ${ms(m.version)} | ${versionRatio.toFixed(2)}x of \`node -e 0\` | ≤ 1.5x | ${verdict(versionRatio <= 1.5)} | ${cpuText(c.version, c.node)} |`,
      `| the server's answer (new connection) | ${ms(m.answer)} | | | | |`,
      `| \`expense query "${SQL}"\` | ${ms(m.query)} | adds ${queryAdds.toFixed(2)}x of \`node -e 0\` over the answer | ≤ 2x | ${verdict(queryAdds <= 2)} | ${cpuText(c.query, c.node)} |`,
      '',
    ].join('\n'),
  );
} finally {
  await sandbox.close();
}
