/**
 * The arguments of `bash -c command` as the tests run it: without the machine's startup files. bash reads
 * ~/.bashrc even when not interactive if its stdin is a socket (Node's pipes are) and SHLVL is unset (a test's
 * own environment): on a machine whose ~/.bashrc runs `pyenv init`, that cost ~0.5 s a command, and what such a
 * file sets could change what the command does.
 */
export const bashArgs = (command: string): string[] => ['--norc', '--noprofile', '-c', command];
