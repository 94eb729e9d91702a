/**
 * Timers for the background workers: a first run after `firstDelayMs`, then every
 * `intervalMs`, never keeping the process alive. `enabled: false` (NETREP_WORKERS=false on an
 * API-only instance) schedules nothing; the worker's `runOnce` still works on demand.
 */
export interface Schedule {
  cancel(): void;
}

export function schedule(
  tick: () => void,
  options: { intervalMs: number; firstDelayMs?: number; enabled?: boolean },
): Schedule {
  if (options.enabled === false) return { cancel: () => undefined };
  const first = options.firstDelayMs === undefined ? null : setTimeout(tick, options.firstDelayMs);
  const timer = setInterval(tick, options.intervalMs);
  first?.unref();
  timer.unref();
  return {
    cancel() {
      if (first) clearTimeout(first);
      clearInterval(timer);
    },
  };
}

/** A worker's pass: on demand (`runOnce`) or on its schedule, one at a time, stoppable. */
export interface SerialPass<R> {
  /** Runs a pass now (after the one in progress, if any) and returns its result. */
  runOnce(): Promise<R>;
  /** Cancels the schedule, tells a pass in progress to stop (`stopping()`), and waits for it. */
  stop(): Promise<void>;
  /** True once `stop` was called. */
  stopping(): boolean;
}

/**
 * The shape every background worker shares: passes never overlap (a `runOnce` waits for the
 * pass in progress), a scheduled tick is skipped while one runs, a failed scheduled pass is
 * reported and the next tick tries again, and `stop` lets the pass leave early through
 * `stopping()` (checked between its bounded steps) before waiting for it.
 */
export function serialPass<R>(
  pass: (stopping: () => boolean) => Promise<R>,
  options: {
    intervalMs: number;
    firstDelayMs?: number;
    enabled?: boolean;
    onError: (err: unknown) => void;
  },
): SerialPass<R> {
  let running: Promise<R> | null = null;
  let stopped = false;
  const stopping = () => stopped;
  const runOnce = async (): Promise<R> => {
    while (running) await running.catch(() => undefined);
    running = pass(stopping).finally(() => {
      running = null;
    });
    return await running;
  };
  const timer = schedule(() => {
    if (running || stopped) return;
    runOnce().catch(options.onError);
  }, options);
  return {
    runOnce,
    stopping,
    async stop() {
      stopped = true;
      timer.cancel();
      await running?.catch(() => undefined);
    },
  };
}
