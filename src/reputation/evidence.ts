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

/**
 * Turns stored rows into the record the model scores. Spec §2.5: synthetic observations are
 * excluded from the age anchor and from all production evidence. CONTRACT §7: telemetry signals
 * use the most recent production observation; the age anchor is the earliest production
 * observation of any kind (telemetry or evidence). Rows may come in any order.
 */
export function deriveEvidence(facts: EvidenceFacts): EvidenceRecord {
  const trapHits: EvidenceRecord['trapHits'] = { pristine: [], recycled: [], typo: [] };
  const honeypotEvents: number[] = [];
  let first: number | null = null;
  const anchor = (t: number) => {
    first = first === null ? t : Math.min(first, t);
  };
  for (const e of facts.evidence) {
    if (e.synthetic) continue;
    anchor(e.observedAt);
    if (e.kind === 'pristine_trap') trapHits.pristine.push(e.observedAt);
    else if (e.kind === 'recycled_trap') trapHits.recycled.push(e.observedAt);
    else if (e.kind === 'typo_trap') trapHits.typo.push(e.observedAt);
    else honeypotEvents.push(e.observedAt);
  }
  let latest: TelemetrySnapshot | null = null;
  for (const t of facts.telemetry) {
    if (t.synthetic) continue;
    anchor(t.observedAt);
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
  return {
    ip: facts.ip,
    activeListing: facts.activeListing,
    trapHits,
    honeypotEvents,
    telemetry: latest,
    listedEvents: [...facts.listedEvents],
    geoChangeCount: facts.geoChangeCount,
    fcrdns: facts.fcrdns,
    firstObservedAt: first,
    datacenter: facts.datacenter,
    subnetActiveListings: facts.subnetActiveListings,
  };
}
