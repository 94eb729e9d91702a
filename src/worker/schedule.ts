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
