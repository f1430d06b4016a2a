import { Argument, type Command, type Option } from 'commander';
import type { Action } from '../action.js';
import { choices } from '../choices.js';

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
/** The values an option takes, where they are a fixed set (commander's choices). */
const valuesOf = (o: Option): readonly string[] | undefined => o.argChoices;
/** Words a command's first argument takes from a fixed set (`expense report <report>`, `completion <shell>`). */
const argumentWords = (c: Command): readonly string[] => c.registeredArguments[0]?.argChoices ?? [];

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

const SCRIPTS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

export function registerCompletion(program: Command, action: Action): void {
  program
    .command('completion')
    .addArgument(choices(new Argument('<shell>', 'the shell'), Object.keys(SCRIPTS)))
    .description('Print a shell completion script (bash: source <(expense completion bash))')
    .action(
      action(async (ctx, _options: object, [shell]) => {
        ctx.io.stdout.write(SCRIPTS[shell as keyof typeof SCRIPTS](program));
      }),
    );
}
