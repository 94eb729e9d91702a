export {
  type BlocklistMirror,
  type BlocklistMirrorOptions,
  startBlocklistMirror,
} from './blocklist-mirror.ts';
export { createListingIndex, type FastListingIndex, type StoredListing } from './listing-index.ts';
export { classifyQueryName, ipToQueryName } from './query-name.ts';
export {
  type DnsblServer,
  type DnsblServerOptions,
  type DnsblTcpLimits,
  startDnsblServer,
} from './server.ts';
export {
  DnsblListing,
  type DnsblLogger,
  type ListingIndex,
  ListingValue,
  type MutableListingIndex,
  SoaSettings,
} from './types.ts';
export {
  exportZone,
  writeZoneExport,
  type ZoneExportFormat,
  type ZoneExportOptions,
  type ZoneExportSummary,
} from './zone-export.ts';
