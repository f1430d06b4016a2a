import { spawn } from 'node:child_process';
import type { IO } from '../context.js';

/**
 * Writes text to stdout through a pager when stdout is a terminal (`$PAGER`, default `less -FRX`: quits when
 * it fits one screen, keeps colours, leaves the text on screen). Never when stdout is not a terminal, with
 * `PAGER` empty or `cat`, or when the pager cannot be started (then the text is written directly).
 */
export async function writePaged(io: IO, text: string, enabled = true): Promise<void> {
  const pager = io.env.PAGER ?? 'less -FRX';
  if (!enabled || !io.stdout.isTTY || !pager.trim() || pager.trim() === 'cat') {
    io.stdout.write(text);
    return;
  }
  const started = await new Promise<boolean>((resolve) => {
    const child = spawn('/bin/sh', ['-c', pager], {
      stdio: ['pipe', 'inherit', 'inherit'],
      env: { LESS: 'FRX', ...io.env },
    });
    child.on('error', () => resolve(false));
    child.stdin.on('error', () => {}); // the user quit the pager before reading everything
    child.on('close', (code) => resolve(code !== 127));
    child.stdin.end(text);
  });
  if (!started) io.stdout.write(text);
}
