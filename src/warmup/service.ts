import type { Clock } from '../core/clock.ts';
import { AppError } from '../core/errors.ts';
import { parseIp } from '../core/ip.ts';
import type { Assessment, Reputation } from '../reputation/index.ts';
import type { Store } from '../store/index.ts';
import { assessWarmup } from './assess.ts';
import { classifyPool, graduationState, isGraduation } from './pool.ts';
import { createPoolStore, type GraduationEvent, type PoolStore } from './store.ts';
import type { PoolClassificationItem, WarmupData } from './types.ts';

export interface Warmup {
  /** GET /v1/email/ip/{ip}/warmup. */
  forIp(rawIp: string): Promise<WarmupData>;
  /**
   * POST /v1/email/pool/classify for one owner: 1-50 addresses, duplicates answered once; an
   * invalid address or unavailable evidence fails the whole request. Classifications are
   * persisted per owner; probation -> seasoned emits one graduation event.
   */
  classify(ownerId: number, rawIps: readonly string[]): Promise<PoolClassificationItem[]>;
  /** The owner's graduation events at or after `since` (retained 30 days). */
  graduationEvents(ownerId: number, since: number): Promise<GraduationEvent[]>;
}

export interface WarmupOptions {
  store: Store;
  clock: Clock;
  reputation: Reputation;
  /** Called after the transaction that stored new graduation events (webhook delivery hooks in here). */
  onGraduation?: (events: readonly GraduationEvent[]) => void;
}

function warmupOf(a: Assessment) {
  return assessWarmup(
    {
      ip: a.ip,
      firstSendingAt: a.telemetry.firstSending?.observedAt ?? null,
      reputationScore: a.score,
      listed: a.listed,
    },
    a.computedAt,
  );
}

/** Spec §8: pool classification takes up to 50 IPs. */
export const MAX_POOL_IPS = 50;

function normalizeAll(rawIps: readonly string[]): string[] {
  if (rawIps.length > MAX_POOL_IPS)
    throw new AppError('TOO_MANY_IPS', `maximum ${MAX_POOL_IPS} IPs per request`);
  const ips: string[] = [];
  rawIps.forEach((raw, i) => {
    const ip = parseIp(raw)?.address;
    if (ip === undefined)
      throw new AppError('INVALID_IP', `invalid IP address: ips[${i}] ${JSON.stringify(raw)}`);
    if (!ips.includes(ip)) ips.push(ip);
  });
  return ips;
}

export function createWarmup(options: WarmupOptions): Warmup {
  const { reputation, clock } = options;
  const pool: PoolStore = createPoolStore(options.store.db, options.store.dialect);
  return {
    async forIp(rawIp) {
      const ip = parseIp(rawIp)?.address;
      if (ip === undefined) throw new AppError('INVALID_IP', `invalid IP address: ${JSON.stringify(rawIp)}`);
      return warmupOf(await reputation.assess(ip));
    },

    async classify(ownerId, rawIps) {
      const ips = normalizeAll(rawIps);
      // One read per table for all addresses (reputation's rollup path).
      const items: PoolClassificationItem[] = (await reputation.assessMany(ips)).map((a) => {
        const w = warmupOf(a);
        return classifyPool({
          ip: a.ip,
          reputationScore: a.score,
          warmupStatus: w.status,
          daysSending: w.days_sending,
          listed: a.listed,
          volume24h: a.telemetry.latest?.volume24h ?? null,
          fcrdns: a.fcrdnsStatus,
          recommendedDailyVolume: w.recommended_daily_volume,
        });
      });
      let events: GraduationEvent[];
      try {
        events = await pool.classify(ownerId, items, clock(), (previous) =>
          items.flatMap((item) => {
            const before = previous.get(item.ip) ?? null;
            return before !== null && isGraduation(before, item.tier)
              ? [{ ip: item.ip, state: graduationState(before, item) }]
              : [];
          }),
        );
      } catch (err) {
        throw new AppError('EVIDENCE_UNAVAILABLE', 'pool classifications cannot be stored', { cause: err });
      }
      if (events.length > 0) options.onGraduation?.(events);
      return items;
    },

    graduationEvents: (ownerId, since) => pool.graduationEvents(ownerId, since),
  };
}
