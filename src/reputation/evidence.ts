import type { EvidenceRecord, FcrdnsStatus, ListingType, TelemetrySnapshot } from './types.ts';

/** Kinds accepted by POST /v1/admin/evidence (CONTRACT §4). */
export const EVIDENCE_KINDS = ['pristine_trap', 'recycled_trap', 'typo_trap', 'smtp_honeypot'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/** One stored evidence event, as the store holds it. */
export interface EvidenceEvent {
  kind: EvidenceKind;
  observedAt: number;
  synthetic: boolean;
}

/** One stored telemetry observation. Synthetic rows exist for tests and are never scored. */
export interface TelemetryRow {
  observedAt: number;
  bounceRate: number | null;
  complaintRate: number | null;
  volume24h: number | null;
  synthetic: boolean;
}

/** The raw facts about one address, as rows read from the store and the dataset. */
export interface EvidenceFacts {
  ip: string;
  activeListing: ListingType | null;
  /** Times of the address's `listed` blocklist events. */
  listedEvents: readonly number[];
  evidence: readonly EvidenceEvent[];
  telemetry: readonly TelemetryRow[];
  geoChangeCount: number | null;
  fcrdns: FcrdnsStatus;
  datacenter: boolean | null;
  /** Active listings in the /24 (the address itself included); null for IPv6. */
  subnetActiveListings: number | null;
}

const earlier = (a: number | null, b: number | null): number | null =>
  a === null ? b : b === null ? a : Math.min(a, b);

/** The production (non-synthetic) evidence events by kind, and the earliest of them. */
function productionEvidence(evidence: readonly EvidenceEvent[]) {
  const trapHits: EvidenceRecord['trapHits'] = { pristine: [], recycled: [], typo: [] };
  const honeypotEvents: number[] = [];
  let first: number | null = null;
  for (const e of evidence) {
    if (e.synthetic) continue;
    first = first === null ? e.observedAt : Math.min(first, e.observedAt);
    if (e.kind === 'pristine_trap') trapHits.pristine.push(e.observedAt);
    else if (e.kind === 'recycled_trap') trapHits.recycled.push(e.observedAt);
    else if (e.kind === 'typo_trap') trapHits.typo.push(e.observedAt);
    else honeypotEvents.push(e.observedAt);
  }
  return { trapHits, honeypotEvents, first };
}

/** The latest production telemetry observation (on equal times the later row), and the earliest one's time. */
function productionTelemetry(telemetry: readonly TelemetryRow[]) {
  let latest: TelemetrySnapshot | null = null;
  let first: number | null = null;
  for (const t of telemetry) {
    if (t.synthetic) continue;
    first = first === null ? t.observedAt : Math.min(first, t.observedAt);
    // On equal times the later row wins: it was written last.
    if (latest === null || t.observedAt >= latest.observedAt) {
      latest = {
        bounceRate: t.bounceRate,
        complaintRate: t.complaintRate,
        volume24h: t.volume24h,
        observedAt: t.observedAt,
      };
    }
  }
  return { latest, first };
}

/**
 * Turns stored rows into the record the model scores. Spec §2.5: synthetic observations are
 * excluded from the age anchor and from all production evidence. CONTRACT §7: telemetry signals
 * use the most recent production observation; the age anchor is the earliest production
 * observation of any kind (telemetry or evidence). Rows may come in any order.
 */
export function deriveEvidence(facts: EvidenceFacts): EvidenceRecord {
  const events = productionEvidence(facts.evidence);
  const telemetry = productionTelemetry(facts.telemetry);
  return {
    ip: facts.ip,
    activeListing: facts.activeListing,
    trapHits: events.trapHits,
    honeypotEvents: events.honeypotEvents,
    telemetry: telemetry.latest,
    listedEvents: [...facts.listedEvents],
    geoChangeCount: facts.geoChangeCount,
    fcrdns: facts.fcrdns,
    firstObservedAt: earlier(events.first, telemetry.first),
    datacenter: facts.datacenter,
    subnetActiveListings: facts.subnetActiveListings,
  };
}
