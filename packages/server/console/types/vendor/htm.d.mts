// The type of ../vendor/htm.mjs, the pinned htm the server serves (see tsconfig.json's rootDirs).
export { default } from 'htm';
