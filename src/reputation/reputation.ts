import { type Clock, DAY_MS, toIso, utcDay } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { isPublicIp, type ParsedIp, parseIp } from '../core/ip.ts';
import type { Store } from '../store/index.ts';
import type { Telemetry, TelemetryFacts } from '../telemetry/index.ts';
import { deriveEvidence, type TelemetryRow } from './evidence.ts';
import { type EvidenceInput, validateEvidenceBody, validateEvidenceEvent } from './evidence-input.ts';
import { dailyHistory, HISTORY_DAYS } from './history.ts';
import { EVIDENCE_WINDOW_MS, scoreReputation } from './score.ts';
import type { IntelFacts, ListingFacts } from './sources.ts';
import { createReputationStore, type FcrdnsRecord, type ReputationStore } from './store.ts';
import { subnetOf, summarizeSubnet } from './subnet.ts';
import type {
  BatchReputationItem,
  FcrdnsResult,
  FcrdnsStatus,
  ReputationData,
  ScoreResult,
  SubnetSummary,
} from './types.ts';

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

/** Spec §8: reputation batch takes up to 100 IPs. */
export const MAX_BATCH_IPS = 100;

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
  /** POST /v1/admin/evidence: each event validated on its own; accepted ones in one transaction. */
  recordEvidence(body: unknown): Promise<EvidenceResult>;
  /** Addresses with production pristine-trap evidence observed at or after `since` (threat score). */
  recentPristineTrapIps(since: number): Promise<string[]>;
  /** Stores an FCrDNS observation (audit probes, the daily check). */
  recordFcrdns(record: FcrdnsRecord): Promise<void>;
}

export interface ReputationOptions {
  store: Store;
  clock: Clock;
  telemetry: Telemetry;
  listings: ListingFacts;
  intel: IntelFacts;
  /** A store read slower than this is unavailable evidence (default 5000 ms). */
  evidenceTimeoutMs?: number;
  /** Called after accepted evidence is stored (the IP threat score refreshes its trap set). */
  onEvidenceRecorded?: () => void;
}

/**
 * Spec §2.5: if evidence cannot be read, an unavailable error is returned and never a neutral
 * or clean score. Every store or blocklist failure (closed store, lost server, timeout)
 * becomes 503 EVIDENCE_UNAVAILABLE; the cause stays attached for the log.
 */
async function readEvidence<T>(timeoutMs: number, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new AppError('EVIDENCE_UNAVAILABLE', `evidence was not read within ${timeoutMs} ms`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work(), deadline]);
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw new AppError('EVIDENCE_UNAVAILABLE', undefined, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

function telemetryRows(facts: TelemetryFacts): TelemetryRow[] {
  // Earliest first, latest last: deriveEvidence lets the later row win on equal times.
  return [facts.earliest, facts.firstSending, facts.latest].filter((r) => r !== null);
}

function fcrdnsStatus(record: FcrdnsRecord | null): FcrdnsStatus {
  if (record === null) return 'unknown';
  return record.forwardMatch ? 'pass' : 'fail';
}

function fcrdnsResult(r: FcrdnsRecord): FcrdnsResult {
  return {
    ip: r.ip,
    ptr_hostname: r.ptrHostname,
    forward_match: r.forwardMatch,
    forward_ips: r.forwardIps,
    last_checked_at: toIso(r.lastCheckedAt),
    last_observed_at: r.lastObservedAt === null ? null : toIso(r.lastObservedAt),
  };
}

function parseOrThrow(raw: string, what = 'ip'): ParsedIp {
  const parsed = parseIp(raw);
  if (parsed === null) throw new AppError('INVALID_IP', `invalid IP address: ${what} ${JSON.stringify(raw)}`);
  return parsed;
}

export function createReputation(options: ReputationOptions): Reputation {
  const { clock, telemetry, listings, intel } = options;
  const rows: ReputationStore = createReputationStore(options.store.db);
  const timeoutMs = options.evidenceTimeoutMs ?? 5000;

  async function assessAt(ip: string, now: number): Promise<Assessment> {
    const since = now - EVIDENCE_WINDOW_MS;
    const subnet = subnetOf(ip);
    const [evidence, tele, fcrdns, activeListing, listedEvents, subnetCount] = await Promise.all([
      rows.evidenceFor(ip, since),
      telemetry.factsFor(ip),
      rows.fcrdnsFor(ip),
      listings.activeListing(ip),
      listings.listedEventsSince(ip, since),
      subnet === null ? Promise.resolve(null) : listings.activeCountInSubnet24(ip),
    ]);
    const status = fcrdnsStatus(fcrdns);
    const record = deriveEvidence({
      ip,
      activeListing,
      listedEvents,
      evidence,
      telemetry: telemetryRows(tele),
      geoChangeCount: intel.geoChangeCount90d(ip),
      fcrdns: status,
      datacenter: intel.datacenter(ip),
      subnetActiveListings: subnetCount,
    });
    const result = scoreReputation(record, now);
    await rows.saveComputation({ ip, subnet, score: result.score, level: result.level, computedAt: now });
    return {
      ...result,
      ip,
      listed: activeListing !== null,
      fcrdns,
      fcrdnsStatus: status,
      telemetry: tele,
      subnetActiveListings: subnetCount,
      computedAt: now,
    };
  }

  async function subnetSummary(subnet: string, activeListings: number): Promise<SubnetSummary> {
    return summarizeSubnet(subnet, await rows.subnetScores(subnet), activeListings);
  }

  const assess = (ip: string) => readEvidence(timeoutMs, () => assessAt(ip, clock()));

  return {
    assess,

    forIp(rawIp) {
      const ip = parseOrThrow(rawIp).address;
      return readEvidence(timeoutMs, async () => {
        const now = clock();
        const a = await assessAt(ip, now);
        const subnet = subnetOf(ip);
        const [points, summary] = await Promise.all([
          rows.historyFor(ip, utcDay(now - (HISTORY_DAYS - 1) * DAY_MS)),
          subnet === null ? Promise.resolve(null) : subnetSummary(subnet, a.subnetActiveListings ?? 0),
        ]);
        return {
          ip,
          score: a.score,
          level: a.level,
          factors: a.factors,
          history: dailyHistory(points, now),
          subnet: summary,
          blocklist: { listed: a.listed },
          fcrdns: a.fcrdns === null ? null : fcrdnsResult(a.fcrdns),
        };
      });
    },

    async batch(rawIps) {
      if (rawIps.length > MAX_BATCH_IPS) {
        throw new AppError('TOO_MANY_IPS', `maximum ${MAX_BATCH_IPS} IPs per request`);
      }
      const ips: string[] = [];
      rawIps.forEach((raw, i) => {
        const parsed = parseOrThrow(raw, `ips[${i}]`);
        if (!isPublicIp(parsed)) {
          throw new AppError('INVALID_IP', `ips[${i}] ${parsed.address} is not a public IP address`);
        }
        if (!ips.includes(parsed.address)) ips.push(parsed.address);
      });
      const now = clock();
      const items: BatchReputationItem[] = [];
      // The deadline applies to each address: a batch of 100 is not 100 times as urgent.
      for (const ip of ips) {
        const a = await readEvidence(timeoutMs, () => assessAt(ip, now));
        items.push({ ip, score: a.score, level: a.level });
      }
      return items;
    },

    neighbors(rawIp) {
      const parsed = parseOrThrow(rawIp);
      const subnet = subnetOf(parsed.address);
      if (subnet === null || !isPublicIp(parsed)) {
        throw new AppError('INVALID_IP', `${parsed.address} is not a public IPv4 address`);
      }
      return readEvidence(timeoutMs, async () =>
        subnetSummary(subnet, await listings.activeCountInSubnet24(parsed.address)),
      );
    },

    async recordEvidence(body) {
      const now = clock();
      const accepted: EvidenceInput[] = [];
      const errors: string[] = [];
      validateEvidenceBody(body).forEach((raw, i) => {
        const out = validateEvidenceEvent(raw, i, now);
        if (typeof out === 'string') errors.push(out);
        else accepted.push(out);
      });
      await rows.insertEvidence(accepted, now);
      if (accepted.length > 0) options.onEvidenceRecorded?.();
      return { accepted: accepted.length, rejected: errors.length, errors };
    },

    recentPristineTrapIps: (since) => rows.pristineTrapIpsSince(since),
    recordFcrdns: (record) => rows.saveFcrdns(record),
  };
}
