#!/usr/bin/env node
// The published command. A committed file, so that installing the workspace links it before the first build.
await import('../dist/bin.js');
