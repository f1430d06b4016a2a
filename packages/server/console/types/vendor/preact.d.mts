// The type of ../vendor/preact.mjs, the pinned Preact the server serves (see tsconfig.json's rootDirs).
export * from 'preact';
