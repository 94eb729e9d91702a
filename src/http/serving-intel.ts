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
        : state === 'loading'
          ? 'the dataset is being loaded; retry shortly'
          : 'no dataset is loaded yet: run netrep dataset build, then POST /v1/admin/datasets/reload',
  );
}

/**
 * The meta of an answer that read dataset facts without needing them (reputation's datacenter
 * and geo changes, header hops' enrichment): the serving version, read when the answer is done,
 * or nothing while no snapshot is loaded (the facts were then unknown, not read).
 */
export function datasetMeta(services: { datasetVersion(): number | null }): { dataset_version?: number } {
  const version = services.datasetVersion();
  return version === null ? {} : { dataset_version: version };
}
