export { type DialectName, ping, supportsSkipLocked } from './dialect.ts';
export { migrate } from './migrate.ts';
export { openStore, type Store, sqliteDataVersion } from './open.ts';
export { createPrepared, type PreparedSql } from './prepared.ts';
export { BUMP_STAMPS, bumpStampsCte, bumpStampsIn, RAISE_STAMP, READ_STAMPS, stampKeys } from './stamps.ts';
export { isStoreUnavailable } from './unavailable.ts';
