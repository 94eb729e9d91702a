export {
  type BlocklistMirror,
  startBlocklistMirror,
} from './blocklist-mirror.ts';
export { type DnsblThread, startDnsblThread } from './dns-thread.ts';
export { createListingIndex } from './listing-index.ts';
export { registerDnsblMetrics } from './metrics.ts';
export { ipToQueryName } from './query-name.ts';
export {
  type DnsblServer,
  startDnsblServer,
} from './server.ts';
export { DnsblListing } from './types.ts';
export {
  writeZoneExport,
  type ZoneExportFormat,
} from './zone-export.ts';
