// The MMDB export writes the API's geolocation of each DB-IP city record (cli/dataset-export.ts).
export { countryName, geolocationOf } from './geo.ts';
export { createIntel, type Intel } from './intel.ts';
export { createIntelRuntime, type IntelRuntime } from './runtime.ts';
export { THREAT_REASON } from './threat.ts';
export { createTrapSet, type TrapSet } from './trap-set.ts';
// Types only: the schema values are in schemas.ts (TypeBox stays out of the list commands).
export type * from './types.ts';
export { intelFactsOf, ipEnrichmentOf, withDeadline } from './wiring.ts';
