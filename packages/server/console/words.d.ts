// words.js is not a file here: the server serves it from the error catalogue (src/features/console/words.ts), so the
// Import page words the import core's refusals from their situation, in the catalogue's console words.
/** A situation's console texts, `{{fact}}` left to fill. */
interface ConsoleTexts {
  message: string;
  hint: string;
  own: boolean;
}
export declare const CONSOLE_ERRORS: Record<
  string,
  ConsoleTexts & { variants: Record<string, ConsoleTexts> }
>;
export declare const SITUATION_CODES: {
  readonly csv_syntax: 'import_unreadable';
  readonly rows_refused: 'import_unreadable';
} & Readonly<Partial<Record<string, string>>>;
export declare function consoleWords(error: {
  code: string;
  variant?: string | undefined;
  facts?: Readonly<Record<string, string | number>> | undefined;
  message?: string | undefined;
}): { message: string; hint: string } | undefined;
