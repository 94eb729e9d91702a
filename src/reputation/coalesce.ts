/**
 * Joins calls that arrive together into one batch (issue 18): callers queue a key, and once the
 * current turn of the event loop ends (`setImmediate`) every key queued so far is handed to
 * `run` at once, at most `max` per batch. Each caller gets the result at its own position, or
 * the batch's error. `run` answers in key order; duplicate keys are passed as they came.
 */
export function createCoalescer<K, V>(
  run: (keys: readonly K[]) => Promise<readonly V[]>,
  max: number,
): (key: K) => Promise<V> {
  let queue: { key: K; resolve: (v: V) => void; reject: (e: unknown) => void }[] = [];
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    const taken = queue;
    queue = [];
    for (let i = 0; i < taken.length; i += max) {
      const part = taken.slice(i, i + max);
      Promise.resolve()
        .then(() => run(part.map((p) => p.key)))
        .then(
          (values) => {
            part.forEach((p, k) => {
              p.resolve(values[k] as V);
            });
          },
          (err: unknown) => {
            for (const p of part) p.reject(err);
          },
        );
    }
  };

  return (key) =>
    new Promise<V>((resolve, reject) => {
      queue.push({ key, resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    });
}
