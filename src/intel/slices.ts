/**
 * Builds that can pause: a builder of the lookup tables is a generator that yields between
 * slices of its work (a few thousand intervals, a few hundred blocks) and returns what it built.
 * At start it is run to its end at once (`runSlices`: no turn of the event loop, as fast as a
 * plain function); on a reload `runSlicesYielding` gives the event loop a turn whenever a few
 * milliseconds of slices have run, so requests keep being answered while a new snapshot's
 * tables are built (#32 item 9). Only the builds are sliced: the lookups they return are the
 * same closures either way.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** A build that yields (nothing) between slices of its work and returns T. */
export type Slices<T> = Generator<void, T, void>;

/** Runs a sliced build to its end without yielding to the event loop. */
export function runSlices<T>(build: Slices<T>): T {
  for (;;) {
    const step = build.next();
    if (step.done) return step.value;
  }
}

/** Milliseconds of slices run between two turns of the event loop on a reload. */
export const SLICE_BUDGET_MS = 4;

/** Runs a sliced build, giving the event loop a turn whenever `budgetMs` of slices have run. */
export async function runSlicesYielding<T>(build: Slices<T>, budgetMs = SLICE_BUDGET_MS): Promise<T> {
  let since = performance.now();
  for (;;) {
    const step = build.next();
    if (step.done) return step.value;
    if (performance.now() - since >= budgetMs) {
      await nextTurn();
      since = performance.now();
    }
  }
}
