/**
 * The audit job worker (CONTRACT §10): every `pollMs` it claims due jobs (queued ones, and
 * running ones whose lease expired) and runs them one after another until none is due. Several
 * workers on one PostgreSQL share jobs through FOR UPDATE SKIP LOCKED in the claim.
 */
import type { AuditRunner, RunEnd } from '../audit/index.ts';
import { serialPass } from './schedule.ts';

export interface AuditWorker {
  /** Runs due jobs until none is left; returns what each ended as. */
  runOnce(): Promise<{ jobId: number; end: RunEnd }[]>;
  stop(): Promise<void>;
}

export function startAuditWorker(options: {
  /** Built with the worker's stop flag: a stopping worker leaves its job between probes. */
  runner: (stopping: () => boolean) => AuditRunner;
  pollMs?: number;
  /** false: no timers (an API-only instance); runOnce still works. */
  scheduled?: boolean;
  logger?: { warn(obj: object, msg?: string): void };
}): AuditWorker {
  // The runner checks the worker's stop flag between probes (read when called, after creation).
  const runner = options.runner(() => worker.stopping());
  const pass = async (stopping: () => boolean) => {
    const ended: { jobId: number; end: RunEnd }[] = [];
    while (!stopping()) {
      const r = await runner.runNext();
      if (!r) break;
      ended.push(r);
    }
    return ended;
  };
  const pollMs = options.pollMs ?? 1000;
  const worker = serialPass(pass, {
    intervalMs: pollMs,
    firstDelayMs: pollMs,
    enabled: options.scheduled,
    onError: (err) => options.logger?.warn({ err }, 'audit worker pass failed'),
  });
  return worker;
}
