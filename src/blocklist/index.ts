export { checkAnswer, eventAnswer, listingAnswer, statsAnswer } from './answer.ts';
export {
  type Blocklist,
  createBlocklist,
} from './blocklist.ts';
export { TEST_ENTRY_REASON } from './test-entries.ts';
export * from './types.ts';
