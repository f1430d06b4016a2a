import { CliError, ExitCode } from '../errors.js';

/** A file that could not be read, said in words (never a bare ENOENT) with what to do about it. */
export function fileNotReadable(path: string, error: unknown): CliError {
  const code = (error as NodeJS.ErrnoException).code;
  const [message, hint] =
    code === 'ENOENT'
      ? [`There is no file ${path}.`, 'Check the name and the directory you are in (ls shows what is there).']
      : code === 'EISDIR'
        ? [`${path} is a directory, not a file.`, 'Give the path of a file inside it.']
        : code === 'EACCES' || code === 'EPERM'
          ? [
              `You may not read ${path}.`,
              'Check its permissions (ls -l), or copy it somewhere you may read it.',
            ]
          : [`Cannot read ${path}: ${(error as Error).message}`, undefined];
  return new CliError('file_not_readable', message, ExitCode.failure, hint ? { hint } : {});
}
