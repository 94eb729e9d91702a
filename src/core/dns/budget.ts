import type { Clock } from '../clock.ts';
import type { DnsClient, MxAnswer } from './client.ts';
import { DnsError, type DnsErrorCode, isDnsError } from './errors.ts';

export interface DnsBudgetOptions {
  /** Queries this request may send; the next one fails with BUDGET without being sent. */
  maxLookups: number;
  /** Queries in flight at once; the rest wait in order. */
  concurrency: number;
  /** Total time for the whole request, from the moment the budget is created. */
  deadlineMs: number;
  clock: Clock;
}

/** Counters of one request's DNS work; reported in answers so callers see what was spent. */
export interface DnsBudgetStats {
  lookups: number;
  max_lookups: number;
  concurrency: number;
  deadline_ms: number;
  elapsed_ms: number;
  deadline_exceeded: boolean;
  budget_exhausted: boolean;
  /** Failed queries by class (NXDOMAIN and NODATA included: they are answers, counted apart). */
  errors: Partial<Record<DnsErrorCode, number>>;
}

export interface BudgetedDnsClient extends DnsClient {
  stats(): DnsBudgetStats;
  /** Milliseconds left before the deadline (0 when passed). */
  remainingMs(): number;
}

/**
 * Wraps a client with a per-request lookup budget, bounded concurrency and an absolute
 * deadline (spec §8: a domain check has 5 s in total). A query still queued or in flight
 * when the deadline passes rejects with DEADLINE at that instant, so the request never
 * waits for per-query timeouts beyond its deadline.
 */
export function withBudget(client: DnsClient, options: DnsBudgetOptions): BudgetedDnsClient {
  const startedAt = options.clock();
  const deadlineAt = startedAt + options.deadlineMs;
  const concurrency = Math.max(1, Math.floor(options.concurrency));
  let lookups = 0;
  let active = 0;
  let deadlineExceeded = false;
  let budgetExhausted = false;
  const errors: Partial<Record<DnsErrorCode, number>> = {};
  const waiting: Array<() => void> = [];

  const remainingMs = () => Math.max(0, deadlineAt - options.clock());

  function release(): void {
    active -= 1;
    const next = waiting.shift();
    if (next) next();
  }

  function schedule<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        active += 1;
        task().then(resolve, reject).finally(release);
      };
      if (active < concurrency) start();
      else waiting.push(start);
    });
  }

  function count(err: unknown): never {
    const code: DnsErrorCode = isDnsError(err) ? err.code : 'OTHER';
    errors[code] = (errors[code] ?? 0) + 1;
    throw err;
  }

  function run<T>(label: string, query: () => Promise<T>): Promise<T> {
    if (remainingMs() <= 0) {
      deadlineExceeded = true;
      return Promise.reject(new DnsError('DEADLINE', label)).catch(count);
    }
    if (lookups >= options.maxLookups) {
      budgetExhausted = true;
      return Promise.reject(new DnsError('BUDGET', label)).catch(count);
    }
    lookups += 1;
    const task = schedule(() => {
      if (remainingMs() <= 0) return Promise.reject(new DnsError('DEADLINE', label));
      return query();
    });
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        deadlineExceeded = true;
        reject(new DnsError('DEADLINE', label));
      }, remainingMs());
      task.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (err: unknown) => {
          clearTimeout(timer);
          if (isDnsError(err) && err.code === 'DEADLINE') deadlineExceeded = true;
          reject(err);
        },
      );
    }).catch(count);
  }

  return {
    txt: (name) => run(`${name} TXT`, () => client.txt(name)),
    mx: (name): Promise<MxAnswer[]> => run(`${name} MX`, () => client.mx(name)),
    a: (name) => run(`${name} A`, () => client.a(name)),
    aWithTtl: (name) => run(`${name} A`, () => client.aWithTtl(name)),
    aaaa: (name) => run(`${name} AAAA`, () => client.aaaa(name)),
    ptr: (ip) => run(`${ip} PTR`, () => client.ptr(ip)),
    remainingMs,
    stats: () => ({
      lookups,
      max_lookups: options.maxLookups,
      concurrency,
      deadline_ms: options.deadlineMs,
      elapsed_ms: Math.max(0, options.clock() - startedAt),
      deadline_exceeded: deadlineExceeded,
      budget_exhausted: budgetExhausted,
      errors: { ...errors },
    }),
  };
}
