import type { Command, Option } from 'commander';
import { usageError } from '../errors.js';
import { DATE_FORMATS } from '../import/dialect.js';
import { PRESET_NAMES } from '../import/presets.js';
import type { Action } from './action.js';
import { REPORTS } from './report.js';

/** Values an option or argument takes, where the CLI knows them (commander's choices, and these). */
const KNOWN_VALUES: Record<string, readonly string[]> = {
  '--preset': PRESET_NAMES,
  '--into': ['ledger_entries', 'budget_lines'],
  '--date-format': DATE_FORMATS,
  '--encoding': ['utf8', 'latin1'],
  '--delimiter': [',', ';', 'tab'],
};

interface Node {
  /** Words after `expense` that lead here, e.g. ["workspaces"]. */
  path: string[];
  command: Command;
}

function walk(command: Command, path: string[] = []): Node[] {
  return [{ path, command }, ...command.commands.flatMap((c) => walk(c, [...path, c.name()]))];
}

const visible = (c: Command) => c.commands.filter((s) => s.name() !== 'help');
const longFlags = (c: Command) =>
  c.options
    .filter((o: Option) => !o.hidden)
    .flatMap((o: Option) => [o.long, o.short].filter(Boolean) as string[]);
function valuesOf(o: Option): readonly string[] | undefined {
  return o.argChoices ?? (o.long ? KNOWN_VALUES[o.long] : undefined);
}
/** Positional words a command takes from a fixed list (`expense report <report>`, `completion <shell>`). */
function argumentWords(c: Command): string[] {
  if (c.name() === 'report') return Object.keys(REPORTS);
  if (c.name() === 'completion') return ['bash', 'zsh', 'fish'];
  return [];
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

export function bashScript(program: Command): string {
  const nodes = walk(program);
  const globals = longFlags(program);
  const transitions = nodes.flatMap((n) =>
    visible(n.command).map((s) => quote(`${n.path.join(' ')}:${s.name()}`)),
  );
  const words = nodes.map((n) => {
    const list = [
      ...visible(n.command).map((s) => s.name()),
      ...argumentWords(n.command),
      ...longFlags(n.command),
      ...(n.path.length ? globals : []),
    ];
    return `    ${quote(n.path.join(' '))}) words=${quote(list.join(' '))} ;;`;
  });
  const values = new Map<string, readonly string[]>();
  for (const n of nodes)
    for (const o of n.command.options) {
      const v = valuesOf(o);
      if (v && o.long) values.set(o.long, v);
    }
  const valueCases = [...values].map(
    ([flag, v]) => `    ${flag}) COMPREPLY=($(compgen -W ${quote(v.join(' '))} -- "$cur")); return ;;`,
  );
  return `# expense completion for bash. Load it with:  source <(expense completion bash)
_expense() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" w i words
  case "$prev" in
${valueCases.join('\n')}
  esac
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$path:$w" in
      ${transitions.join('|')}) path="\${path:+$path }$w" ;;
    esac
  done
  case "$path" in
${words.join('\n')}
    *) words="" ;;
  esac
  if [[ "$cur" == -* || -z "$cur" || -n "$words" ]]; then
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  fi
}
complete -o default -F _expense expense
`;
}

export function zshScript(program: Command): string {
  return `#compdef expense
# expense completion for zsh. Load it with:  source <(expense completion zsh)
# (or save it as _expense in a directory on $fpath). It uses zsh's bash-completion emulation.
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashScript(program)}`;
}

export function fishScript(program: Command): string {
  const lines = ['# expense completion for fish. Load it with:  expense completion fish | source'];
  const esc = (s: string) => s.replaceAll("'", "\\'");
  for (const n of walk(program)) {
    const condition =
      n.path.length === 0
        ? '__fish_use_subcommand'
        : `__fish_seen_subcommand_from ${n.path.at(-1)}${
            n.path.length > 1 ? `; and __fish_seen_subcommand_from ${n.path.at(-2)}` : ''
          }`;
    for (const s of visible(n.command))
      lines.push(`complete -c expense -f -n '${condition}' -a ${s.name()} -d '${esc(s.description())}'`);
    for (const word of argumentWords(n.command))
      lines.push(`complete -c expense -f -n '${condition}' -a ${word}`);
    for (const o of n.command.options) {
      if (o.hidden || !o.long) continue;
      const values = valuesOf(o);
      const flags = `-l ${o.long.slice(2)}${o.short ? ` -s ${o.short.slice(1)}` : ''}`;
      const arg = o.required || o.optional ? (values ? ` -x -a '${values.join(' ')}'` : ' -r') : '';
      const scope = n.path.length === 0 ? '' : ` -n '${condition}'`;
      lines.push(`complete -c expense${scope} ${flags}${arg} -d '${esc(o.description)}'`);
    }
  }
  return `${lines.join('\n')}\n`;
}

export function registerCompletion(program: Command, action: Action): void {
  program
    .command('completion')
    .argument('<shell>', 'bash, zsh or fish')
    .description('Print a shell completion script (bash: source <(expense completion bash))')
    .action(
      action(async (ctx, _options: object, [shell]) => {
        const scripts = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;
        const make = scripts[shell!.toLowerCase() as keyof typeof scripts];
        if (!make) throw usageError(`No completion for "${shell}".`, 'Shells: bash, zsh, fish.');
        ctx.io.stdout.write(make(program));
      }),
    );
}
