/**
 * The daily FCrDNS check (CONTRACT §7): every address that sent production telemetry in the
 * last seven days is checked once a day and the result stored; reputation reads the latest
 * stored result and does no DNS itself. Unknown outcomes (resolver trouble) store nothing.
 */
import type { Clock } from '../core/clock.ts';
import { DAY_MS } from '../core/clock.ts';
import type { DnsClient } from '../core/dns/index.ts';
import { checkFcrdns, type Reputation } from '../reputation/index.ts';
import type { Telemetry } from '../telemetry/index.ts';
import { serialPass } from './schedule.ts';

export interface FcrdnsWorker {
  /** One pass now; returns how many addresses got a stored result. */
  runOnce(): Promise<{ checked: number; stored: number }>;
  stop(): Promise<void>;
}

export function startFcrdnsWorker(options: {
  telemetry: Telemetry;
  reputation: Reputation;
  dns: DnsClient;
  clock: Clock;
  /** First pass this long after start (default one minute), then every `intervalMs` (a day). */
  firstRunMs?: number;
  intervalMs?: number;
  concurrency?: number;
  /** false: no timers (an API-only instance); runOnce still works. */
  scheduled?: boolean;
  logger?: { warn(obj: object, msg?: string): void };
}): FcrdnsWorker {
  const concurrency = options.concurrency ?? 8;

  // A stopping worker ends its pass after the checks already asked (no new ones start).
  const pass = async (stopping: () => boolean) => {
    const now = options.clock();
    const senders = await options.telemetry.recentSenders(now - 7 * DAY_MS);
    let stored = 0;
    let checked = 0;
    let next = 0;
    const lane = async () => {
      while (next < senders.length && !stopping()) {
        const s = senders[next++];
        if (!s) break;
        const record = await checkFcrdns(s.ip, options.dns, options.clock(), s.lastObservedAt);
        checked++;
        if (record) {
          await options.reputation.recordFcrdns(record);
          stored++;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, senders.length) }, lane));
    return { checked, stored };
  };

  return serialPass(pass, {
    intervalMs: options.intervalMs ?? DAY_MS,
    firstDelayMs: options.firstRunMs ?? 60_000,
    enabled: options.scheduled,
    onError: (err) => options.logger?.warn({ err }, 'FCrDNS check failed'),
  });
}
