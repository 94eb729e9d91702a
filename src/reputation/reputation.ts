import { type Clock, DAY_MS, toIso, utcDay } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { isPublicIp, type ParsedIp, parseIp } from '../core/ip.ts';
import { memoByObject } from '../core/memo.ts';
import type { Store } from '../store/index.ts';
import type { Telemetry, TelemetryFacts } from '../telemetry/index.ts';
import { createCoalescer } from './coalesce.ts';
import { deriveEvidence, type TelemetryRow } from './evidence.ts';
import { type EvidenceInput, validateEvidenceBody, validateEvidenceEvent } from './evidence-input.ts';
import {
  BoundedMap,
  type FactsEntry,
  factsValidUntil,
  type HistoryEntry,
  type MemberScore,
  type SubnetEntry,
} from './facts-cache.ts';
import { type Computation, dailyHistory, HISTORY_DAYS } from './history.ts';
import {
  ageDays,
  type CountedEvidence,
  countRecent,
  EVIDENCE_WINDOW_MS,
  scoreCounted,
  scoreReputation,
} from './score.ts';
import type { IntelFacts, ListingFacts, ListingSummary } from './sources.ts';
import {
  type ComputationRecord,
  createReputationStore,
  type FcrdnsRecord,
  type KindCounts,
  type ReputationStore,
} from './store.ts';
import { type SubnetMember, subnetOf, summarizeSubnet } from './subnet.ts';
import type {
  BatchReputationItem,
  FcrdnsResult,
  FcrdnsStatus,
  ReputationData,
  ScoreResult,
  SubnetSummary,
  TelemetrySnapshot,
} from './types.ts';
import { addCounts, NO_EVENTS, type RawRange, tallyWindow } from './window.ts';
import { createWriteBehind, overlayMembers, overlayPoints } from './write-behind.ts';

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

/** Addresses (and /24s) whose facts, history and members each instance keeps (facts-cache.ts). */
const CACHE_ENTRIES = 20_000;

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

/**
 * The answer's FCrDNS object, once per stored record: kept facts hand the same record to every
 * answer (issue 18: formatting its two instants was 1 % of a single answer's CPU).
 */
const fcrdnsResult = memoByObject(fcrdnsResultOf);

function fcrdnsResultOf(r: FcrdnsRecord): FcrdnsResult {
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

const EMPTY_TELEMETRY: TelemetryFacts = { latest: null, earliest: null, firstSending: null };

function snapshotOf(facts: TelemetryFacts): TelemetrySnapshot | null {
  const t = facts.latest;
  if (t === null) return null;
  return {
    bounceRate: t.bounceRate,
    complaintRate: t.complaintRate,
    volume24h: t.volume24h,
    observedAt: t.observedAt,
  };
}

/** The age anchor: the earliest production observation of either kind (CONTRACT §7). */
function anchorOf(evidenceFirst: number | null, facts: TelemetryFacts): number | null {
  const t = facts.earliest?.observedAt ?? null;
  if (evidenceFirst === null) return t;
  return t === null ? evidenceFirst : Math.min(evidenceFirst, t);
}

export function createReputation(options: ReputationOptions): Reputation {
  const { clock, telemetry, listings, intel } = options;
  const rows: ReputationStore = createReputationStore(options.store);
  const timeoutMs = options.evidenceTimeoutMs ?? 5000;
  const writer = createWriteBehind({
    save: (list) => rows.saveComputations(list),
    ...(options.writeBehindMs === undefined ? {} : { flushMs: options.writeBehindMs }),
    ...(options.onWriteError ? { onError: options.onWriteError } : {}),
  });

  async function listingsFor(ips: readonly string[], since: number): Promise<Map<string, ListingSummary>> {
    if (listings.factsForMany) return await listings.factsForMany(ips, since);
    const entries = await Promise.all(
      ips.map(async (ip): Promise<[string, ListingSummary]> => {
        const [activeListing, listedEvents, subnetActiveListings] = await Promise.all([
          listings.activeListing(ip),
          listings.listedEventsSince(ip, since),
          subnetOf(ip) === null ? Promise.resolve(null) : listings.activeCountInSubnet24(ip),
        ]);
        return [ip, { activeListing, listedEvents, subnetActiveListings }];
      }),
    );
    return new Map(entries);
  }

  /** Raw counts for the days the window cuts through: one read per distinct cut. */
  async function countCuts(
    ips: readonly string[],
    cuts: readonly RawRange[][],
  ): Promise<Map<string, KindCounts>> {
    const groups = new Map<string, { range: RawRange; ips: string[] }>();
    cuts.forEach((ranges, i) => {
      for (const range of ranges) {
        const key = `${range.from} ${range.to}`;
        const group = groups.get(key) ?? { range, ips: [] };
        group.ips.push(ips[i] as string);
        groups.set(key, group);
      }
    });
    const out = new Map<string, KindCounts>();
    const results = await Promise.all(
      [...groups.values()].map((g) => rows.evidenceCounts(g.ips, g.range.from, g.range.to)),
    );
    for (const counts of results) {
      for (const [ip, c] of counts) out.set(ip, addCounts(out.get(ip) ?? NO_EVENTS, c));
    }
    return out;
  }

  const facts = new BoundedMap<string, FactsEntry>(CACHE_ENTRIES);
  const histories = new BoundedMap<string, HistoryEntry>(CACHE_ENTRIES);
  const subnets = new BoundedMap<string, SubnetEntry>(CACHE_ENTRIES);

  /** The change stamps of the addresses and their /24s, in one read. */
  async function readStamps(ips: readonly string[], subnetOfIp: Map<string, string | null>) {
    const keys = new Set(ips);
    for (const s of subnetOfIp.values()) if (s !== null) keys.add(s);
    return await rows.stamps([...keys]);
  }

  /**
   * The facts of many addresses: kept ones whose stamps and time bounds hold, the others read
   * with one query per table (evidence rollups, telemetry summary, FCrDNS, listings) and kept
   * when they can be (facts-cache.ts).
   */
  async function factsFor(
    ips: readonly string[],
    now: number,
    subnetOfIp: Map<string, string | null>,
    stamps: Map<string, number>,
  ): Promise<Map<string, FactsEntry>> {
    const out = new Map<string, FactsEntry>();
    const missing: string[] = [];
    const stampOf = (key: string | null | undefined) => (key ? (stamps.get(key) ?? 0) : 0);
    for (const ip of ips) {
      const e = facts.get(ip);
      if (
        e !== undefined &&
        e.ipStamp === stampOf(ip) &&
        e.subnetStamp === stampOf(subnetOfIp.get(ip)) &&
        now >= e.filledAt &&
        now < e.validUntil
      ) {
        out.set(ip, e);
      } else missing.push(ip);
    }
    if (missing.length === 0) return out;
    const since = now - EVIDENCE_WINDOW_MS;
    const [rollups, tele, fcrdnsRows, listed] = await Promise.all([
      rows.evidenceWindow(missing, since, now),
      telemetry.factsForMany(missing),
      rows.fcrdnsForMany(missing),
      listingsFor(missing, since),
    ]);
    // Days wholly inside are summed by the read; the cut days settle here (raw rows if needed).
    const tallies = missing.map((ip) => {
      const w = rollups.get(ip);
      const t = tallyWindow(w?.cut ?? [], since, now);
      return { counts: addCounts(t.counts, w?.inside ?? NO_EVENTS), raw: t.raw };
    });
    const cut = tallies.some((t) => t.raw.length > 0)
      ? await countCuts(
          missing,
          tallies.map((t) => t.raw),
        )
      : new Map<string, KindCounts>();
    missing.forEach((ip, i) => {
      const listing = listed.get(ip) ?? { activeListing: null, listedEvents: [], subnetActiveListings: null };
      const window = rollups.get(ip);
      const entry: FactsEntry = {
        ipStamp: stampOf(ip),
        subnetStamp: stampOf(subnetOfIp.get(ip)),
        filledAt: now,
        validUntil: factsValidUntil(window, listing, now),
        firstAt: window?.firstAt ?? null,
        counts: addCounts(tallies[i]?.counts ?? NO_EVENTS, cut.get(ip) ?? NO_EVENTS),
        telemetry: tele.get(ip) ?? EMPTY_TELEMETRY,
        fcrdns: fcrdnsRows.get(ip) ?? null,
        listing,
      };
      out.set(ip, entry);
      if (entry.validUntil > now) facts.set(ip, entry);
    });
    return out;
  }

  const subnetsOf = (ips: readonly string[]) => new Map(ips.map((ip) => [ip, subnetOf(ip)]));

  /** Scores many addresses at `now` from their facts (kept or read). Stores nothing. */
  async function scoreMany(
    ips: readonly string[],
    now: number,
    subnetOfIp = subnetsOf(ips),
    stamps?: Map<string, number>,
  ): Promise<Assessment[]> {
    const known = await factsFor(ips, now, subnetOfIp, stamps ?? (await readStamps(ips, subnetOfIp)));
    return ips.map((ip) => {
      const f = known.get(ip) as FactsEntry;
      const { listing } = f;
      const status = fcrdnsStatus(f.fcrdns);
      // Besides the entry, a score takes these; the same ones give the same score (kept facts
      // answer many requests, and scoring with its factor texts was a twentieth of an answer).
      const listed = countRecent(listing.listedEvents, now);
      const geoChangeCount = intel.geoChangeCount90d(ip);
      const datacenter = intel.datacenter(ip);
      const firstObservedAt = anchorOf(f.firstAt, f.telemetry);
      const age = firstObservedAt === null ? null : ageDays(firstObservedAt, now);
      let scored = f.scored;
      if (
        scored === undefined ||
        scored.listed !== listed ||
        scored.geoChangeCount !== geoChangeCount ||
        scored.datacenter !== datacenter ||
        scored.ageDays !== age
      ) {
        const evidence: CountedEvidence = {
          ip,
          activeListing: listing.activeListing,
          telemetry: snapshotOf(f.telemetry),
          geoChangeCount,
          fcrdns: status,
          firstObservedAt,
          datacenter,
          subnetActiveListings: listing.subnetActiveListings,
        };
        const result = scoreCounted(evidence, { ...f.counts, listed }, now);
        scored = { listed, geoChangeCount, datacenter, ageDays: age, result };
        f.scored = scored;
      }
      const result = scored.result;
      return {
        ...result,
        ip,
        listed: listing.activeListing !== null,
        fcrdns: f.fcrdns,
        fcrdnsStatus: status,
        telemetry: f.telemetry,
        subnetActiveListings: listing.subnetActiveListings,
        computedAt: now,
      };
    });
  }

  /** The stored points of each address since the history window's first day, kept per UTC day. */
  async function historyOf(ips: readonly string[], now: number): Promise<Map<string, Computation[]>> {
    const today = Math.floor(now / DAY_MS);
    const out = new Map<string, Computation[]>();
    const missing: string[] = [];
    for (const ip of ips) {
      const e = histories.get(ip);
      if (e !== undefined && e.day === today && now >= e.filledAt) out.set(ip, e.points);
      else missing.push(ip);
    }
    if (missing.length === 0) return out;
    const read = await rows.historyForMany(missing, utcDay(now - (HISTORY_DAYS - 1) * DAY_MS));
    for (const ip of missing) {
      // With the computations not yet written (this instance's own).
      const points = overlayPoints(read.get(ip) ?? [], writer.pointsOf(ip));
      out.set(ip, points);
      histories.set(ip, { day: today, filledAt: now, points });
    }
    return out;
  }

  /** The latest stored score of every member of each /24, kept while the /24's stamp holds. */
  async function membersOf(
    list: readonly string[],
    stamps: Map<string, number>,
  ): Promise<Map<string, Map<string, MemberScore>>> {
    const out = new Map<string, Map<string, MemberScore>>();
    const missing: string[] = [];
    for (const subnet of list) {
      const e = subnets.get(subnet);
      if (e !== undefined && e.stamp === (stamps.get(subnet) ?? 0)) out.set(subnet, e.members);
      else missing.push(subnet);
    }
    if (missing.length === 0) return out;
    const read = await rows.subnetScoresMany(missing);
    for (const subnet of missing) {
      const stored = new Map((read.get(subnet) ?? []).map((m) => [m.ip, m]));
      const members = overlayMembers(stored, writer.latestIn(subnet));
      out.set(subnet, members);
      subnets.set(subnet, { stamp: stamps.get(subnet) ?? 0, members });
    }
    return out;
  }

  /**
   * Queues computations to be written (write-behind.ts) and updates the kept history and /24
   * members as the stored rows will read (a computation dated before the stored one never
   * replaces it). The /24's stamp is raised when the write lands, which then drops the kept
   * entry here too and has it read again from the rows.
   */
  async function saveComputations(list: readonly ComputationRecord[]): Promise<void> {
    const full = writer.queue(list);
    for (const c of list) {
      // The same merges the overlays of the rows make: per day, and per address, the later wins.
      const h = histories.get(c.ip);
      if (h !== undefined) h.points = overlayPoints(h.points, [c]);
      const members = c.subnet === null ? undefined : subnets.get(c.subnet)?.members;
      if (members !== undefined) overlayMembers(members, [c]);
    }
    if (full !== undefined) await full;
  }

  const computationOf = (a: Assessment, subnet = subnetOf(a.ip)): ComputationRecord => ({
    ip: a.ip,
    subnet,
    score: a.score,
    level: a.level,
    computedAt: a.computedAt,
  });

  async function assessMany(ips: readonly string[], now: number): Promise<Assessment[]> {
    const assessed = await scoreMany(ips, now);
    await saveComputations(assessed.map((a) => computationOf(a)));
    return assessed;
  }

  /** The model as first written: every raw event and observation read, nothing stored. */
  async function fromScratch(ip: string, now: number): Promise<Assessment> {
    const since = now - EVIDENCE_WINDOW_MS;
    const subnet = subnetOf(ip);
    const [evidence, tele, fcrdns, activeListing, listedEvents, subnetCount] = await Promise.all([
      rows.evidenceFor(ip, since),
      telemetry.rawFactsFor(ip),
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
    return {
      ...scoreReputation(record, now),
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
    const stored = new Map((await rows.subnetScores(subnet)).map((m) => [m.ip, m]));
    return summarizeSubnet(
      subnet,
      [...overlayMembers(stored, writer.latestIn(subnet)).values()],
      activeListings,
    );
  }

  /** Full answers for many addresses: one read per table, one write (the computations). */
  async function answerMany(ips: readonly string[], now: number): Promise<ReputationData[]> {
    const unique = [...new Set(ips)];
    const subnetOfIp = subnetsOf(unique);
    const subnetList = [...new Set([...subnetOfIp.values()].filter((s) => s !== null))];
    // The stamps first, then every read the kept facts cannot answer, at once; each computation
    // joins its history and its /24 in memory exactly as the stored rows will hold it once it is
    // saved (the later computation wins).
    const stamps = await readStamps(unique, subnetOfIp);
    const [assessed, storedHistory, members] = await Promise.all([
      scoreMany(unique, now, subnetOfIp, stamps),
      historyOf(unique, now),
      membersOf(subnetList, stamps),
    ]);
    await saveComputations(assessed.map((a) => computationOf(a, subnetOfIp.get(a.ip) ?? null)));
    const byIp = new Map(assessed.map((a) => [a.ip, a]));
    const current = new Map(assessed.map((a) => [a.ip, { ip: a.ip, score: a.score, computedAt: now }]));
    // This batch's computations by /24, in batch order.
    const currentIn = new Map<string, { ip: string; score: number; computedAt: number }[]>();
    for (const c of current.values()) {
      const subnet = subnetOfIp.get(c.ip);
      if (subnet === null || subnet === undefined) continue;
      const list = currentIn.get(subnet) ?? [];
      list.push(c);
      currentIn.set(subnet, list);
    }
    const today = Math.floor(now / DAY_MS);
    return ips.map((ip): ReputationData => {
      const a = byIp.get(ip) as Assessment;
      const mine = current.get(ip) as { ip: string; score: number; computedAt: number };
      const points = storedHistory.get(ip) ?? [];
      // Today's stored point is replaced by this computation, unless it is dated after now
      // (a clock moved back): then it stays and this one is not added.
      const history: { score: number; computedAt: number }[] = [];
      let heldToday = false;
      for (const p of points) {
        if (Math.floor(p.computedAt / DAY_MS) !== today) history.push(p);
        else if (p.computedAt > now) heldToday = true;
      }
      if (heldToday) {
        history.length = 0;
        history.push(...points);
      } else history.push(mine);
      const subnet = subnetOfIp.get(ip) ?? null;
      let summary: SubnetSummary | null = null;
      if (subnet !== null) {
        // The /24 as stored plus every computation of this batch in it (each saved just now).
        const stored = members.get(subnet) ?? new Map<string, MemberScore>();
        const list: SubnetMember[] = [];
        for (const m of stored.values()) if (!current.has(m.ip)) list.push(m);
        for (const c of currentIn.get(subnet) ?? []) {
          const held = stored.get(c.ip);
          list.push(held !== undefined && held.computedAt > now ? held : c);
        }
        summary = summarizeSubnet(subnet, list, a.subnetActiveListings ?? 0);
      }
      return {
        ip,
        score: a.score,
        level: a.level,
        factors: a.factors,
        history: dailyHistory(history, now),
        subnet: summary,
        blocklist: { listed: a.listed },
        fcrdns: a.fcrdns === null ? null : fcrdnsResult(a.fcrdns),
      };
    });
  }

  const answerOne = createCoalescer<string, ReputationData>((ips) => answerMany(ips, clock()), MAX_BATCH_IPS);
  const assessOne = createCoalescer<string, Assessment>(async (ips) => {
    const unique = [...new Set(ips)];
    const byIp = new Map((await assessMany(unique, clock())).map((a) => [a.ip, a]));
    return ips.map((ip) => byIp.get(ip) as Assessment);
  }, MAX_BATCH_IPS);

  const assess = (ip: string) => readEvidence(timeoutMs, () => assessOne(ip));

  return {
    assess,
    assessMany: (ips) => readEvidence(timeoutMs, () => assessMany(ips, clock())),
    assessFromScratch: (ip) => readEvidence(timeoutMs, () => fromScratch(ip, clock())),

    async checkRollups() {
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
    },

    forIp(rawIp) {
      const ip = parseOrThrow(rawIp).address;
      // Answers that arrive together are read and written together; each keeps its own deadline.
      return readEvidence(timeoutMs, () => answerOne(ip));
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
      const traps = accepted.filter((e) => e.kind === 'pristine_trap' && !e.synthetic);
      if (traps.length > 0) options.onPristineTrapsRecorded?.(traps);
      return { accepted: accepted.length, rejected: errors.length, errors };
    },

    recentPristineTrapIps: (since) => rows.pristineTrapIpsSince(since),
    recordFcrdns: (record) => rows.saveFcrdns(record),
    flush: () => writer.flush(),
    close: () => writer.close(),
  };
}
