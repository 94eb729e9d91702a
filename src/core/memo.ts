/**
 * `make(key)` once per key object, for as long as the key lives (a WeakMap: no bound needed, no
 * entry outlives its key). For pure functions of objects that are never changed once made and
 * are handed out again and again (issue 18: a reputation answer's stored history points and its
 * FCrDNS record, the same objects answer after answer); the value is shared, so it must not be
 * changed by its users either.
 */
export function memoByObject<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}
