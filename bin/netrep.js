#!/usr/bin/env -S node --expose-gc
// --expose-gc: a full collection after each dataset load returns its garbage (core/collect-garbage.ts).
// Runs the TypeScript sources directly through tsx, so `npm start` needs no build step.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
