/**
 * Runs one claimed audit job (CONTRACT §10): the zones' RFC 5782 test points first, then one
 * DNSBL probe per sampled address and zone and one FCrDNS check per address, `concurrency` at a
 * time. The lease is renewed through heartbeat_at; a probe whose observation is already stored
 * (a job taken over from a dead worker) is not run again. A cancel request stops the job
 * between probes; a lost lease stops it without touching the job any more.
 */
import type { Clock } from '../core/clock.ts';
import type { DnsClient } from '../core/dns/index.ts';
import type { FcrdnsRecord } from '../reputation/index.ts';
import { createJobEnd, type RunEnd, type RunState } from './job-end.ts';
import { observeProbe, type Probe, plannedProbes, untrustedZones } from './probes.ts';
import type { AuditStore, Claimed, NewObservation } from './store.ts';

/** Observations are written in batches of up to this many (and at least every cancel poll). */
const FLUSH_AT = 100;

export interface AuditRunnerOptions {
  store: AuditStore;
  /** The resolvers of NETREP_DNS_SERVERS, with the audit probe timeout. */
  dns: DnsClient;
  clock: Clock;
  /** The service's own zone; always probed. */
  ownZone: string;
  /** NETREP_AUDIT_ZONES. */
  extraZones: readonly string[];
  concurrency: number;
  leaseMs: number;
  /** How often the cancel flag is read while probes run (default 250 ms). */
  cancelPollMs?: number;
  /** This worker's name in leases and event actors. */
  worker: string;
  /** True once the process is shutting down: the job is left between probes, its lease released. */
  stopping?: () => boolean;
  /** Stores an FCrDNS result where reputation reads it (CONTRACT §7). */
  recordFcrdns(record: FcrdnsRecord): Promise<void>;
  /** Called when this worker takes over a running job whose lease expired (its owner died). */
  onTakeover?: (jobId: number, previousOwner: string | null) => void;
}

export type { RunEnd } from './job-end.ts';

export interface AuditRunner {
  /** Claims one due job (or only `jobId`) and runs it to its end; null when none is due. */
  runNext(jobId?: number): Promise<{ jobId: number; end: RunEnd } | null>;
}

export function createAuditRunner(options: AuditRunnerOptions): AuditRunner {
  const { store, dns, clock, worker } = options;
  const zones = [...new Set([options.ownZone, ...options.extraZones].map((z) => z.toLowerCase()))];
  const actor = `worker:${worker}`;
  const stopping = options.stopping ?? (() => false);
  const observer = { dns, clock, recordFcrdns: options.recordFcrdns };
  const { complete, fail } = createJobEnd({ store, worker, actor, clock, zones });

  /**
   * Runs the probes still to do, `concurrency` at a time, until done, cancelled, lost or
   * stopping; each observation is buffered and written in batches (`flush`).
   */
  async function probeAll(
    jobId: number,
    todo: readonly Probe[],
    st: RunState,
    buffer: NewObservation[],
    flush: () => Promise<void>,
  ): Promise<void> {
    const untrusted =
      !st.cancel && todo.some((p) => p.kind === 'dnsbl')
        ? await untrustedZones(dns, zones)
        : new Map<string, string>();
    let next = 0;
    const lane = async () => {
      while (!st.cancel && !st.lost && !stopping() && next < todo.length) {
        const p = todo[next++] as Probe;
        const o = await observeProbe(observer, p, jobId, untrusted);
        if (st.lost) return;
        buffer.push(o);
        st.progress.done++;
        if (buffer.length >= FLUSH_AT) await flush();
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, todo.length)) }, lane));
  }

  async function run(claimed: Claimed): Promise<RunEnd> {
    const job = claimed.job;
    const targets = await store.targets(job.id);
    const stored = await store.observations(job.id);
    const { all, todo } = plannedProbes(targets, zones, stored);
    const st: RunState = {
      cancel: job.cancel_requested === 1,
      lost: false,
      progress: { done: all.length - todo.length, planned: all.length },
    };
    const beat = async () => {
      const r = await store.heartbeat(job.id, worker, clock(), options.leaseMs, st.progress);
      if (!r) st.lost = true;
      else if (r.cancelRequested) st.cancel = true;
    };
    const timer = setInterval(
      () => {
        beat().catch(() => undefined);
      },
      Math.max(50, Math.floor(options.leaseMs / 3)),
    );
    timer.unref();
    // SERVICE-SPEC §3.4: a running job stops between bounded probes soon after a cancel request.
    // Probed but not yet stored: a worker killed now loses at most these, which the next one probes again.
    const buffer: NewObservation[] = [];
    const flush = async () => {
      const batch = buffer.splice(0);
      await store.insertObservations(batch);
    };
    let flushError: unknown = null;
    const cancelPoll = setInterval(() => {
      flush().catch((err: unknown) => {
        flushError = err;
      });
      store
        .cancelRequested(job.id)
        .then((flag) => {
          if (flag) st.cancel = true;
        })
        .catch(() => undefined);
    }, options.cancelPollMs ?? 250);
    cancelPoll.unref();
    try {
      await probeAll(job.id, todo, st, buffer, flush);
      clearInterval(cancelPoll);
      await flush();
      if (flushError) throw flushError;
      clearInterval(timer);
      await beat();
      if (st.lost) return 'lost';
      if (stopping() && st.progress.done < st.progress.planned && !st.cancel) {
        await store.release(job.id, worker, clock(), st.progress);
        return 'released';
      }
      return await complete(job, targets.length, st);
    } catch (err) {
      clearInterval(timer);
      return await fail(job.id, err, st.progress);
    } finally {
      clearInterval(timer);
      clearInterval(cancelPoll);
    }
  }

  return {
    async runNext(jobId) {
      const claimed = await store.claim(worker, clock(), options.leaseMs, jobId);
      if (!claimed) return null;
      if (claimed.takeover) options.onTakeover?.(claimed.job.id, claimed.previousOwner);
      return { jobId: claimed.job.id, end: await run(claimed) };
    },
  };
}
