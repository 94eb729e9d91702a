/**
 * The audit job worker (CONTRACT §10): every `pollMs` it claims due jobs (queued ones, and
 * running ones whose lease expired) and runs them one after another until none is due. Several
 * workers on one PostgreSQL share jobs through FOR UPDATE SKIP LOCKED in the claim.
 */
import type { AuditRunner, RunEnd } from '../audit/index.ts';
import { schedule } from './schedule.ts';

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
  let running: Promise<{ jobId: number; end: RunEnd }[]> | null = null;
  let stopped = false;
  const runner = options.runner(() => stopped);

  const pass = async () => {
    const ended: { jobId: number; end: RunEnd }[] = [];
    while (!stopped) {
      const r = await runner.runNext();
      if (!r) break;
      ended.push(r);
    }
    return ended;
  };
  const runOnce = async () => {
    while (running) await running.catch(() => undefined);
    running = pass().finally(() => {
      running = null;
    });
    return await running;
  };
  const pollMs = options.pollMs ?? 1000;
  const timer = schedule(
    () => {
      if (running) return;
      runOnce().catch((err: unknown) => options.logger?.warn({ err }, 'audit worker pass failed'));
    },
    { intervalMs: pollMs, firstDelayMs: pollMs, enabled: options.scheduled },
  );
  return {
    runOnce,
    async stop() {
      stopped = true;
      timer.cancel();
      await running?.catch(() => undefined);
    },
  };
}
