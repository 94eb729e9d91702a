/**
 * The IP and ASN routes' view of the dataset: the serving intel, or 503 NOT_READY while no
 * snapshot is loaded (building the first one, its build failed, or none is built yet).
 */
import { AppError } from '../core/errors.ts';
import type { Intel, IntelRuntime } from '../intel/index.ts';

export function servingIntel(runtime: IntelRuntime): Intel {
  const intel = runtime.current();
  if (intel) return intel;
  const state = runtime.state();
  throw new AppError(
    'NOT_READY',
    state === 'failed'
      ? `the dataset could not be loaded: ${runtime.failure() ?? 'unknown error'}`
      : state === 'building'
        ? 'the dataset is still being built; retry shortly'
        : 'no dataset is loaded yet: run netrep dataset build, then POST /v1/admin/datasets/reload',
  );
}
