import { type Static, Type } from '@sinclair/typebox';
import type { TelemetryFacts } from '../telemetry/index.ts';

/** Answer shapes of the reputation module (spec §2.5) and the evidence record it scores. */

export const ReputationLevel = Type.Union(
  [Type.Literal('good'), Type.Literal('neutral'), Type.Literal('poor'), Type.Literal('bad')],
  { description: 'Score band: 80-100 good, 60-79 neutral, 40-59 poor, 0-39 bad' },
);
export type ReputationLevel = Static<typeof ReputationLevel>;

export const FactorName = Type.Union(
  [
    Type.Literal('blocklist_listing'),
    Type.Literal('pristine_trap_hits'),
    Type.Literal('recycled_trap_hits'),
    Type.Literal('smtp_honeypot'),
    Type.Literal('signal_corroboration'),
    Type.Literal('telemetry_bounce_rate'),
    Type.Literal('telemetry_complaint_rate'),
    Type.Literal('neighbor_reputation'),
    Type.Literal('listing_history'),
    Type.Literal('geo_instability'),
    Type.Literal('fcrdns'),
    Type.Literal('ip_age_days'),
    Type.Literal('datacenter_type'),
  ],
  { description: 'Scoring signal the factor comes from' },
);
export type FactorName = Static<typeof FactorName>;

export const Factor = Type.Object({
  name: FactorName,
  impact: Type.Integer({ description: 'Exact signed contribution to the score (before clamping)' }),
  detail: Type.String({ description: 'Human-readable explanation of the contribution' }),
});
export type Factor = Static<typeof Factor>;

export const HistoryPoint = Type.Object({
  score: Type.Integer({
    minimum: 0,
    maximum: 100,
    description: 'Score of the last computation of that UTC day',
  }),
  level: ReputationLevel,
  computed_at: Type.String({ format: 'date-time', description: 'When that computation ran (UTC)' }),
});
export type HistoryPoint = Static<typeof HistoryPoint>;

export const ContaminationLevel = Type.Union(
  [Type.Literal('clean'), Type.Literal('light'), Type.Literal('moderate'), Type.Literal('heavy')],
  { description: 'Active listings in the /24: clean 0, light 1-2, moderate 3-5, heavy 6 or more' },
);
export type ContaminationLevel = Static<typeof ContaminationLevel>;

export const SubnetSummary = Type.Object({
  subnet: Type.String({ description: 'The /24 CIDR of the address' }),
  total_ips_seen: Type.Integer({
    minimum: 0,
    description: 'Addresses of the /24 the service holds data for',
  }),
  listed_count: Type.Integer({ minimum: 0, description: 'Active blocklist listings in the /24' }),
  avg_reputation: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], {
    description: 'Rounded mean score of the seen addresses; null when none is seen',
  }),
  worst_score: Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()], {
    description: 'Lowest score of the seen addresses; null when none is seen',
  }),
  contamination_level: ContaminationLevel,
});
export type SubnetSummary = Static<typeof SubnetSummary>;

export const FcrdnsResult = Type.Object({
  ip: Type.String({ description: 'The checked address, normalized' }),
  ptr_hostname: Type.Union([Type.String(), Type.Null()], {
    description: 'PTR name of the address; null when there is no PTR record',
  }),
  forward_match: Type.Boolean({ description: 'True when the PTR name resolves back to the address' }),
  forward_ips: Type.Array(Type.String(), { description: 'Addresses the PTR name resolves to' }),
  last_checked_at: Type.String({ format: 'date-time', description: 'When the latest check ran' }),
  last_observed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'Latest production observation of the address (what schedules the daily check); null when none',
  }),
});
export type FcrdnsResult = Static<typeof FcrdnsResult>;

export const ReputationData = Type.Object({
  ip: Type.String({ description: 'Normalized address' }),
  score: Type.Integer({ minimum: 0, maximum: 100, description: 'Sending reputation, 0 worst to 100 best' }),
  level: ReputationLevel,
  factors: Type.Array(Factor, {
    description: 'Every contribution; impacts sum to score - 50 before clamping',
  }),
  history: Type.Array(HistoryPoint, {
    description: 'One point per UTC day over the last 30 days, oldest first',
  }),
  subnet: Type.Union([SubnetSummary, Type.Null()], {
    description: 'The /24 neighbourhood; null for IPv6, where no /24 applies',
  }),
  blocklist: Type.Object(
    { listed: Type.Boolean({ description: 'True while an active listing exists' }) },
    { description: 'Blocklist state of the address' },
  ),
  fcrdns: Type.Union([FcrdnsResult, Type.Null()], {
    description: 'Latest forward-confirmed reverse-DNS result; null when never checked',
  }),
});
export type ReputationData = Static<typeof ReputationData>;

export const BatchReputationItem = Type.Object({
  ip: Type.String({ description: 'Normalized address' }),
  score: Type.Integer({ minimum: 0, maximum: 100, description: 'Sending reputation' }),
  level: ReputationLevel,
});
export type BatchReputationItem = Static<typeof BatchReputationItem>;

export const ListingType = Type.Union(
  [Type.Literal('spam'), Type.Literal('malware'), Type.Literal('phishing')],
  {
    description: 'Blocklist listing type',
  },
);
export type ListingType = Static<typeof ListingType>;

export const FcrdnsStatus = Type.Union(
  [Type.Literal('pass'), Type.Literal('fail'), Type.Literal('unknown')],
  {
    description: 'Latest FCrDNS outcome; unknown when never checked',
  },
);
export type FcrdnsStatus = Static<typeof FcrdnsStatus>;

const EpochMs = (description: string) => Type.Integer({ description: `${description} (epoch ms, UTC)` });

export const TelemetrySnapshot = Type.Object({
  bounceRate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
    description: 'bounce_rate of the latest production observation; null when it did not carry one',
  }),
  complaintRate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], {
    description: 'complaint_rate of the latest production observation; null when it did not carry one',
  }),
  volume24h: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'volume_24h of the latest production observation; null when it did not carry one',
  }),
  observedAt: EpochMs('When the observation was made'),
});
export type TelemetrySnapshot = Static<typeof TelemetrySnapshot>;

/**
 * Everything the scoring model needs about one address, already read from the store.
 * Only production evidence belongs here: synthetic observations are dropped before
 * (see deriveEvidence). Timestamps outside the 30-day windows are ignored by the model.
 */
export const EvidenceRecord = Type.Object({
  ip: Type.String({ description: 'Normalized address' }),
  activeListing: Type.Union([ListingType, Type.Null()], {
    description: 'Type of the active listing, or null',
  }),
  trapHits: Type.Object(
    {
      pristine: Type.Array(EpochMs('Pristine trap hit')),
      recycled: Type.Array(EpochMs('Recycled trap hit')),
      typo: Type.Array(EpochMs('Typo trap hit')),
    },
    { description: 'Production trap hits by kind' },
  ),
  honeypotEvents: Type.Array(EpochMs('SMTP honeypot event'), { description: 'Production honeypot activity' }),
  telemetry: Type.Union([TelemetrySnapshot, Type.Null()], {
    description: 'Latest production telemetry observation; null when none',
  }),
  listedEvents: Type.Array(EpochMs('A `listed` blocklist event'), {
    description: 'Listing events of the address',
  }),
  geoChangeCount: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'geo_stability.change_count over the last 90 days of dataset versions; null when unknown',
  }),
  fcrdns: FcrdnsStatus,
  firstObservedAt: Type.Union([EpochMs('Earliest production observation of any kind'), Type.Null()], {
    description: 'Age anchor; null when the address was never observed in production',
  }),
  datacenter: Type.Union([Type.Boolean(), Type.Null()], {
    description: 'Datacenter classification of the dataset; null when unknown',
  }),
  subnetActiveListings: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
    description: 'Active listings in the /24 of an IPv4 address (itself included); null for IPv6',
  }),
});
export type EvidenceRecord = Static<typeof EvidenceRecord>;

/** Result of the pure scoring model. */
export interface ScoreResult {
  score: number;
  level: ReputationLevel;
  factors: Factor[];
}

/** One scored address with the facts other modules (warm-up, pool) reuse. */
export interface Assessment extends ScoreResult {
  ip: string;
  listed: boolean;
  fcrdns: FcrdnsRecord | null;
  fcrdnsStatus: FcrdnsStatus;
  telemetry: TelemetryFacts;
  /** Active listings in the /24 (itself included); null for IPv6. */
  subnetActiveListings: number | null;
  computedAt: number;
}

export interface EvidenceResult {
  accepted: number;
  rejected: number;
  errors: string[];
}

export interface Reputation {
  /** Full reputation data (spec §2.5); the computation is stored for the history. */
  forIp(rawIp: string): Promise<ReputationData>;
  /** Batch items for 1-100 public addresses; an invalid or non-public entry fails the request. */
  batch(rawIps: readonly string[]): Promise<BatchReputationItem[]>;
  /** Subnet summary of the /24 of a public IPv4 address. */
  neighbors(rawIp: string): Promise<SubnetSummary>;
  /** Scores an already normalized address and stores the computation. */
  assess(ip: string): Promise<Assessment>;
  /** The same for several normalized addresses, one read per table; answers in input order. */
  assessMany(ips: readonly string[]): Promise<Assessment[]>;
  /**
   * Scores an address from the raw rows, as the model was first written (every event, every
   * observation); stores nothing. The rollup path must always agree with it.
   */
  assessFromScratch(ip: string): Promise<Assessment>;
  /** Rollup rows that disagree with the raw rows they summarise (empty when consistent). */
  checkRollups(): Promise<string[]>;
  /** POST /v1/admin/evidence: each event validated on its own; accepted ones in one transaction. */
  recordEvidence(body: unknown): Promise<EvidenceResult>;
  /** Addresses with production pristine-trap evidence observed at or after `since` (threat score). */
  recentPristineTrapIps(since: number): Promise<string[]>;
  /** Stores an FCrDNS observation (audit probes, the daily check). */
  recordFcrdns(record: FcrdnsRecord): Promise<void>;
  /** Writes the computations queued behind answers so far (write-behind.ts). */
  flush(): Promise<void>;
  /** Writes what is queued; later computations are written in their answer. */
  close(): Promise<void>;
}

/** A stored FCrDNS observation (CONTRACT §7: written by audit probes and the daily check). */
export interface FcrdnsRecord {
  ip: string;
  ptrHostname: string | null;
  forwardMatch: boolean;
  forwardIps: string[];
  lastCheckedAt: number;
  lastObservedAt: number | null;
}
