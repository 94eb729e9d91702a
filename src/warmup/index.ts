export type { WarmupInput } from './assess.ts';
export { assessWarmup } from './assess.ts';
export type { PoolInput } from './pool.ts';
export { classifyPool, graduationState, isGraduation, poolTier } from './pool.ts';
export { daysSending, firstSendingAt, warmupStatus } from './status.ts';
export * from './types.ts';
export { adjustVolume, autoPause, baseVolume, VOLUME_STEPS } from './volume.ts';
