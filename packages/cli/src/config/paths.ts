import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$XDG_CONFIG_HOME/expense`, by default `~/.config/expense` (cli.md), on every platform. */
export function configDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME?.trim() ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'expense');
}

export const configFile = (env: NodeJS.ProcessEnv) => join(configDir(env), 'config.json');
export const credentialsFile = (env: NodeJS.ProcessEnv) => join(configDir(env), 'credentials.json');

/** `$XDG_STATE_HOME/expense`, by default `~/.local/state/expense`: the interactive query history. */
export function stateDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_STATE_HOME?.trim()
    ? env.XDG_STATE_HOME
    : join(env.HOME?.trim() || homedir(), '.local', 'state');
  return join(base, 'expense');
}

export const historyFile = (env: NodeJS.ProcessEnv) => join(stateDir(env), 'history');
