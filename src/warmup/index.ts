export type { Warmup } from './service.ts';
export { createWarmup } from './service.ts';
export * from './types.ts';
