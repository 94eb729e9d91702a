export { isLoopback, refusedReach, refusedReachOf } from './reach.ts';
export { verifySignature } from './signature.ts';
export { createEventSources } from './sources.ts';
export { createChangeLog } from './store.ts';
export { hostResolverOf } from './target.ts';
export * from './types.ts';
export {
  createWebhooks,
  type NewEvent,
  type Webhooks,
} from './webhooks.ts';
