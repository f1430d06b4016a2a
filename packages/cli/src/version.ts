declare const __CLI_VERSION__: string | undefined;

/** Set by tsup at build time; source runs (tests) report a development version. */
export const VERSION: string = typeof __CLI_VERSION__ === 'string' ? __CLI_VERSION__ : '0.0.0-dev';
