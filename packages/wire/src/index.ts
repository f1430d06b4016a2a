export * from './account.js';
export * from './auth.js';
export * from './discovery.js';
export * from './envelope.js';
export * from './errors.js';
export * from './schema.js';
export * from './sql.js';
export * from './workspaces.js';
