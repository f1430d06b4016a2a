// @expense/test-kit: what the tests and benchmarks of the packages share. Private, read from source.
export * from './call.js';
export * from './engines.js';
export * from './http.js';
export * from './pgbouncer.js';
export * from './postgres.js';
export * from './shell.js';
export * from './sign-in.js';
export * from './smtp.js';
export * from './stats.js';
export * from './system-dependency.js';
export * from './temp.js';
export * from './templates.js';
