/**
 * One full garbage collection, for right after a large load (a dataset snapshot and the lookup
 * tables built from it). The load leaves tens of MB of garbage (parsed JSON text, tables grown by
 * doubling, the previous snapshot on a reload) that V8 may keep, resident, until it next decides
 * to collect: an idle server measured 290 MB or 375 MB RSS depending on whether it had. The
 * collection takes a few hundred ms once per load, on a path that already takes seconds.
 *
 * `gc` is V8's own function: exposed at start with --expose-gc, else the flag is set now and the
 * function read from a new context (V8 installs `gc` on contexts created after the flag).
 */
import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | null | undefined;

export function collectGarbage(): void {
  if (gc === undefined) {
    gc = (globalThis as { gc?: () => void }).gc ?? null;
    if (!gc) {
      try {
        v8.setFlagsFromString('--expose-gc');
        const fn: unknown = vm.runInNewContext('gc');
        gc = typeof fn === 'function' ? (fn as () => void) : null;
      } catch {
        gc = null;
      }
    }
  }
  gc?.();
}
