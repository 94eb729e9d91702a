/**
 * Runs one claimed audit job (CONTRACT §10): the zones' RFC 5782 test points first, then one
 * DNSBL probe per sampled address and zone and one FCrDNS check per address, `concurrency` at a
 * time. The lease is renewed through heartbeat_at; a probe whose observation is already stored
 * (a job taken over from a dead worker) is not run again. A cancel request stops the job
 * between probes; a lost lease stops it without touching the job any more.
 */
import type { Clock } from '../core/clock.ts';
import type { DnsClient } from '../core/dns/index.ts';
import { checkFcrdns, type FcrdnsRecord } from '../reputation/index.ts';
import { type DnsblProbe, probeDnsbl, zoneTestPointFailure } from './dnsbl-probe.ts';
import { interpret } from './interpret.ts';
import type { AuditStore, Claimed, NewObservation, TargetRow } from './store.ts';

/** How long an observation stands for (its expires_at): listings change within hours. */
export const OBSERVATION_TTL_MS = 3_600_000;
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

export type RunEnd = 'succeeded' | 'failed' | 'cancelled' | 'lost' | 'released';

export interface AuditRunner {
  /** Claims one due job (or only `jobId`) and runs it to its end; null when none is due. */
  runNext(jobId?: number): Promise<{ jobId: number; end: RunEnd } | null>;
}

interface Probe {
  target: TargetRow;
  kind: 'dnsbl' | 'fcrdns';
  zone: string;
}

/** Mutable state of a running job, shared by its lanes, heartbeat and cancel poll. */
interface RunState {
  cancel: boolean;
  lost: boolean;
  progress: { done: number; planned: number };
}

const probeKey = (targetId: number, kind: string, source: string) => `${targetId}|${kind}|${source}`;

/** Every probe of a job (each zone, then FCrDNS, per target) and those whose observation is not stored yet. */
function plannedProbes(
  targets: readonly TargetRow[],
  zones: readonly string[],
  stored: readonly { target_id: number; observation_kind: string; source_key: string }[],
): { all: Probe[]; todo: Probe[] } {
  const done = new Set(stored.map((o) => probeKey(o.target_id, o.observation_kind, o.source_key)));
  const all: Probe[] = [];
  for (const target of targets) {
    for (const zone of zones) all.push({ target, kind: 'dnsbl', zone });
    all.push({ target, kind: 'fcrdns', zone: 'fcrdns' });
  }
  return { all, todo: all.filter((p) => !done.has(probeKey(p.target.id, p.kind, p.zone))) };
}

/** The zones whose RFC 5782 test points fail, with the reason (their probes are not sent). */
async function untrustedZones(dns: DnsClient, zones: readonly string[]): Promise<Map<string, string>> {
  const untrusted = new Map<string, string>();
  const checks = await Promise.all(zones.map(async (z) => [z, await zoneTestPointFailure(dns, z)] as const));
  for (const [z, failure] of checks) if (failure) untrusted.set(z, failure);
  return untrusted;
}

/** An FCrDNS observation's outcome and raw response; null (resolver trouble) is `unknown`. */
function fcrdnsFacts(record: FcrdnsRecord | null): Pick<NewObservation, 'outcome' | 'rawProviderResponse'> {
  if (record === null) {
    return {
      outcome: 'unknown',
      rawProviderResponse: { reason: 'resolver trouble left the answer open; nothing stored' },
    };
  }
  return {
    outcome: record.forwardMatch ? 'pass' : 'fail',
    rawProviderResponse: {
      ptr_hostname: record.ptrHostname,
      forward_match: record.forwardMatch,
      forward_ips: record.forwardIps,
    },
  };
}

export function createAuditRunner(options: AuditRunnerOptions): AuditRunner {
  const { store, dns, clock, worker } = options;
  const zones = [...new Set([options.ownZone, ...options.extraZones].map((z) => z.toLowerCase()))];
  const actor = `worker:${worker}`;
  const stopping = options.stopping ?? (() => false);

  async function observe(p: Probe, jobId: number, untrusted: Map<string, string>): Promise<NewObservation> {
    const base = { jobId, targetId: p.target.id, address: p.target.target, kind: p.kind };
    if (p.kind === 'fcrdns') {
      const record = await checkFcrdns(p.target.target, dns, clock(), null);
      if (record) await options.recordFcrdns(record);
      const now = clock();
      const { outcome, rawProviderResponse } = fcrdnsFacts(record);
      return {
        ...base,
        sourceKey: 'fcrdns',
        outcome,
        rawCodes: [],
        rawProviderResponse,
        observedAt: now,
        expiresAt: now + OBSERVATION_TTL_MS,
      };
    }
    const distrust = untrusted.get(p.zone);
    const probe: DnsblProbe = distrust
      ? { outcome: 'error', rawCodes: [], raw: { query: '', rcode: 'NOT_SENT', txt: [], reason: distrust } }
      : await probeDnsbl(dns, p.zone, p.target.target);
    const now = clock();
    return {
      ...base,
      sourceKey: p.zone,
      outcome: probe.outcome,
      rawCodes: probe.rawCodes,
      rawProviderResponse: probe.raw,
      observedAt: now,
      expiresAt: now + OBSERVATION_TTL_MS,
    };
  }

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
        const o = await observe(p, jobId, untrusted);
        if (st.lost) return;
        buffer.push(o);
        st.progress.done++;
        if (buffer.length >= FLUSH_AT) await flush();
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, todo.length)) }, lane));
  }

  /** The job's end once its probes stopped: cancelled (partial) or succeeded, with the final interpretation. */
  async function complete(job: Claimed['job'], addresses: number, st: RunState): Promise<RunEnd> {
    const { progress } = st;
    const facts = (await store.observations(job.id)).map((o) => ({
      address: o.address,
      kind: o.observation_kind,
      sourceKey: o.source_key,
      outcome: o.outcome,
    }));
    const request = JSON.parse(job.request) as { acceptance?: boolean };
    const partial = progress.done < progress.planned;
    const status = st.cancel && partial ? 'cancelled' : 'succeeded';
    const finalInterpretation = interpret({
      addresses,
      ownZone: zones[0] as string,
      zones,
      observations: facts,
      acceptance: request.acceptance === true && status === 'succeeded',
      partial,
    });
    const event =
      status === 'cancelled'
        ? { type: 'cancelled' as const, actor, detail: { progress } }
        : {
            type: 'completed' as const,
            actor,
            detail: { progress, gate: finalInterpretation.acceptance?.gate ?? null },
          };
    const ok = await store.finish(
      job.id,
      worker,
      { status, finalInterpretation, errorDetail: null, progress, event },
      clock(),
    );
    return ok ? status : 'lost';
  }

  /** A job that threw: failed with the error's message (lost when the lease is gone). */
  async function fail(jobId: number, err: unknown, progress: RunState['progress']): Promise<RunEnd> {
    const detail = `audit job failed: ${(err as Error).message}`.slice(0, 500);
    const ok = await store
      .finish(
        jobId,
        worker,
        {
          status: 'failed',
          finalInterpretation: null,
          errorDetail: detail,
          progress,
          event: { type: 'failed', actor, detail: { error: detail } },
        },
        clock(),
      )
      .catch(() => false);
    return ok ? 'failed' : 'lost';
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
