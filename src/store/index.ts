export { type DialectName, ping, supportsSkipLocked } from './dialect.ts';
export { migrate, migrationNames } from './migrate.ts';
export { type OpenStoreOptions, openStore, type Store, sqliteDataVersion } from './open.ts';
export { createPrepared, type Prepared, type PreparedSql, type PreparedStep } from './prepared.ts';
export type { Database } from './schema.ts';
export { BUMP_STAMPS, bumpStampsCte, bumpStampsIn, RAISE_STAMP, READ_STAMPS, stampKeys } from './stamps.ts';
export { isStoreUnavailable } from './unavailable.ts';
