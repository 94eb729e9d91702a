/**
 * One full garbage collection, for right after a large load (a dataset snapshot and the lookup
 * tables built from it). The load leaves tens of MB of garbage (parsed JSON text, tables grown by
 * doubling, the previous snapshot on a reload) that V8 may keep, resident, until it next decides
 * to collect: an idle server measured 290 MB or 375 MB RSS depending on whether it had. The
 * collection takes a few hundred ms once per load, on a path that already takes seconds.
 *
 * `gc` is V8's own function, present only when the process was started with --expose-gc: the
 * `netrep` binary's shebang, `npm start` and the test and benchmark launchers pass it. Without it
 * this does nothing and V8 collects when it decides: Node documents changing V8 flags after start
 * (`v8.setFlagsFromString`) as undefined behaviour, so the flag is never set at run time.
 */
type Gc = () => void;

/** Whether this process can collect on demand (started with --expose-gc). */
export function canCollectGarbage(): boolean {
  return typeof (globalThis as { gc?: unknown }).gc === 'function';
}

/** Runs a full collection when the process allows it; says whether it did. */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: Gc }).gc;
  if (typeof gc !== 'function') return false;
  gc();
  return true;
}
