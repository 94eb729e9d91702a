/**
 * createReputation: reads the evidence, scores, stores the computation and answers the routes.
 * Its parts: facts.ts (facts read and kept), assess.ts (one address scored), kept.ts (history
 * and /24 members kept, with the queued computations laid over), answers.ts (full answers),
 * assess-parts.ts (the evidence deadline and small helpers); coalesce.ts joins answers that
 * arrive together and write-behind.ts writes their computations behind them.
 */
import type { Clock } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { isPublicIp } from '../core/ip.ts';
import type { Store } from '../store/index.ts';
import type { Telemetry } from '../telemetry/index.ts';
import { composeAnswers } from './answers.ts';
import { fromScratch, scoreFacts } from './assess.ts';
import { parseOrThrow, readEvidence } from './assess-parts.ts';
import { createCoalescer } from './coalesce.ts';
import { type EvidenceInput, validateEvidenceBody, validateEvidenceEvent } from './evidence-input.ts';
import { createFactsReader } from './facts.ts';
import type { FactsEntry } from './facts-cache.ts';
import { createKept } from './kept.ts';
import type { IntelFacts, ListingFacts } from './sources.ts';
import { type ComputationRecord, createReputationStore, type ReputationStore } from './store.ts';
import { subnetOf } from './subnet.ts';
import type { Assessment, BatchReputationItem, EvidenceResult, Reputation, ReputationData } from './types.ts';
import { createWriteBehind } from './write-behind.ts';

export type { Assessment, Reputation } from './types.ts';

/** Spec §8: reputation batch takes up to 100 IPs. */
export const MAX_BATCH_IPS = 100;

export interface ReputationOptions {
  store: Store;
  clock: Clock;
  telemetry: Telemetry;
  listings: ListingFacts;
  intel: IntelFacts;
  /** A store read slower than this is unavailable evidence (default 5000 ms). */
  evidenceTimeoutMs?: number;
  /**
   * Called after production (non-synthetic) pristine-trap evidence is stored, with its addresses
   * and observation times (the IP threat score adds them to its trap set).
   */
  onPristineTrapsRecorded?: (hits: { ip: string; observedAt: number }[]) => void;
  /** Computations are written behind the answers every this many ms (default 100). */
  writeBehindMs?: number;
  /** A failed write of computations (they stay queued and are tried again). */
  onWriteError?: (err: unknown) => void;
}

/** The normalized, distinct addresses of a batch request; an invalid or non-public one throws. */
function batchIps(rawIps: readonly string[]): string[] {
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
  return ips;
}

/** Rollup rows (evidence and telemetry) that disagree with the raw rows they summarise. */
async function checkRollups(rows: ReputationStore, telemetry: Telemetry): Promise<string[]> {
  const problems = await rows.rollupMismatches();
  for (const ip of await telemetry.summarizedIps()) {
    const [summary, raw] = await Promise.all([telemetry.factsFor(ip), telemetry.rawFactsFor(ip)]);
    if (JSON.stringify(summary) !== JSON.stringify(raw)) {
      problems.push(
        `telemetry_ip_summary: ${ip} holds ${JSON.stringify(summary)}, raw rows say ${JSON.stringify(raw)}`,
      );
    }
  }
  return problems;
}

/** POST /v1/admin/evidence: each event validated on its own; accepted ones in one transaction. */
async function recordEvidence(
  rows: ReputationStore,
  body: unknown,
  now: number,
  onPristineTrapsRecorded: ReputationOptions['onPristineTrapsRecorded'],
): Promise<EvidenceResult> {
  const accepted: EvidenceInput[] = [];
  const errors: string[] = [];
  validateEvidenceBody(body).forEach((raw, i) => {
    const out = validateEvidenceEvent(raw, i, now);
    if (typeof out === 'string') errors.push(out);
    else accepted.push(out);
  });
  await rows.insertEvidence(accepted, now);
  const traps = accepted.filter((e) => e.kind === 'pristine_trap' && !e.synthetic);
  if (traps.length > 0) onPristineTrapsRecorded?.(traps);
  return { accepted: accepted.length, rejected: errors.length, errors };
}

const subnetsOf = (ips: readonly string[]) => new Map(ips.map((ip) => [ip, subnetOf(ip)]));

const computationOf = (a: Assessment, subnet = subnetOf(a.ip)): ComputationRecord => ({
  ip: a.ip,
  subnet,
  score: a.score,
  level: a.level,
  computedAt: a.computedAt,
});

export function createReputation(options: ReputationOptions): Reputation {
  const { clock, telemetry, listings, intel } = options;
  const rows: ReputationStore = createReputationStore(options.store);
  const timeoutMs = options.evidenceTimeoutMs ?? 5000;
  const writer = createWriteBehind({
    save: (list) => rows.saveComputations(list),
    ...(options.writeBehindMs === undefined ? {} : { flushMs: options.writeBehindMs }),
    ...(options.onWriteError ? { onError: options.onWriteError } : {}),
  });
  const { readStamps, factsFor } = createFactsReader(rows, telemetry, listings);
  const { historyOf, membersOf, saveComputations, subnetSummary } = createKept(rows, writer);

  /** Scores many addresses at `now` from their facts (kept or read). Stores nothing. */
  async function scoreMany(
    ips: readonly string[],
    now: number,
    subnetOfIp = subnetsOf(ips),
    stamps?: Map<string, number>,
  ): Promise<Assessment[]> {
    const known = await factsFor(ips, now, subnetOfIp, stamps ?? (await readStamps(ips, subnetOfIp)));
    return ips.map((ip) => scoreFacts(ip, known.get(ip) as FactsEntry, now, intel));
  }

  async function assessMany(ips: readonly string[], now: number): Promise<Assessment[]> {
    const assessed = await scoreMany(ips, now);
    await saveComputations(assessed.map((a) => computationOf(a)));
    return assessed;
  }

  /** Full answers for many addresses: one read per table, one write (the computations). */
  async function answerMany(ips: readonly string[], now: number): Promise<ReputationData[]> {
    const unique = [...new Set(ips)];
    const subnetOfIp = subnetsOf(unique);
    const subnetList = [...new Set([...subnetOfIp.values()].filter((s) => s !== null))];
    // The stamps first, then every read the kept facts cannot answer, at once.
    const stamps = await readStamps(unique, subnetOfIp);
    const [assessed, storedHistory, members] = await Promise.all([
      scoreMany(unique, now, subnetOfIp, stamps),
      historyOf(unique, now),
      membersOf(subnetList, stamps),
    ]);
    await saveComputations(assessed.map((a) => computationOf(a, subnetOfIp.get(a.ip) ?? null)));
    return composeAnswers(ips, now, assessed, storedHistory, members, subnetOfIp);
  }

  const answerOne = createCoalescer<string, ReputationData>((ips) => answerMany(ips, clock()), MAX_BATCH_IPS);
  const assessOne = createCoalescer<string, Assessment>(async (ips) => {
    const unique = [...new Set(ips)];
    const byIp = new Map((await assessMany(unique, clock())).map((a) => [a.ip, a]));
    return ips.map((ip) => byIp.get(ip) as Assessment);
  }, MAX_BATCH_IPS);
  const scratch = { rows, telemetry, listings, intel };

  return {
    assess: (ip) => readEvidence(timeoutMs, () => assessOne(ip)),
    assessMany: (ips) => readEvidence(timeoutMs, () => assessMany(ips, clock())),
    assessFromScratch: (ip) => readEvidence(timeoutMs, () => fromScratch(scratch, ip, clock())),
    checkRollups: () => checkRollups(rows, telemetry),

    forIp(rawIp) {
      const ip = parseOrThrow(rawIp).address;
      // Answers that arrive together are read and written together; each keeps its own deadline.
      return readEvidence(timeoutMs, () => answerOne(ip));
    },

    async batch(rawIps) {
      const ips = batchIps(rawIps);
      // One read per table for the whole batch, under one deadline.
      const assessed = await readEvidence(timeoutMs, () => assessMany(ips, clock()));
      return assessed.map((a): BatchReputationItem => ({ ip: a.ip, score: a.score, level: a.level }));
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

    recordEvidence: (body) => recordEvidence(rows, body, clock(), options.onPristineTrapsRecorded),
    recentPristineTrapIps: (since) => rows.pristineTrapIpsSince(since),
    recordFcrdns: (record) => rows.saveFcrdns(record),
    flush: () => writer.flush(),
    close: () => writer.close(),
  };
}
