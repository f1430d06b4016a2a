import { homedir } from 'node:os';
import { join } from 'node:path';

/** `$XDG_CONFIG_HOME/expense`, by default `~/.config/expense` (cli.md), on every platform. */
export function configDir(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME?.trim() ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'expense');
}

export const configFile = (env: NodeJS.ProcessEnv) => join(configDir(env), 'config.json');
export const credentialsFile = (env: NodeJS.ProcessEnv) => join(configDir(env), 'credentials.json');
