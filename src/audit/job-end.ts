/** How a claimed audit job ends once its probes stopped: succeeded or cancelled with the final interpretation, or failed. */
import type { Clock } from '../core/clock.ts';
import { interpret } from './interpret.ts';
import type { AuditStore, Claimed } from './store.ts';

export type RunEnd = 'succeeded' | 'failed' | 'cancelled' | 'lost' | 'released';

export /** Mutable state of a running job, shared by its lanes, heartbeat and cancel poll. */
interface RunState {
  cancel: boolean;
  lost: boolean;
  progress: { done: number; planned: number };
}

export interface JobEnd {
  /** The job's end once its probes stopped: cancelled (partial) or succeeded, with the final interpretation. */
  complete(job: Claimed['job'], addresses: number, st: RunState): Promise<RunEnd>;
  /** A job that threw: failed with the error's message (lost when the lease is gone). */
  fail(jobId: number, err: unknown, progress: RunState['progress']): Promise<RunEnd>;
}

/** `zones`: the own zone first, then the others (lower case). */
export function createJobEnd(deps: {
  store: AuditStore;
  worker: string;
  actor: string;
  clock: Clock;
  zones: readonly string[];
}): JobEnd {
  const { store, worker, actor, clock, zones } = deps;
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

  return { complete, fail };
}
