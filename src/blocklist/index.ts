export { checkAnswer, eventAnswer, listingAnswer, statsAnswer } from './answer.ts';
export {
  type Blocklist,
  type BlocklistDeps,
  createBlocklist,
  EXPIRED_REASON,
  isValidReturnCode,
  type ListingListener,
} from './blocklist.ts';
export { TEST_ENTRY_REASON, testEntryListing } from './test-entries.ts';
export * from './types.ts';
