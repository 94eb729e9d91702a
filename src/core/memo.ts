/**
 * `make(key)` once per key object, for as long as the key lives. For pure functions of objects
 * that are never changed once made and are handed out again and again (issue 18: a reputation
 * answer's stored history points and its FCrDNS record, the same objects answer after answer);
 * the value is shared, so it must not be changed by its users either.
 *
 * The value is kept on the key itself, under a symbol of this memo's own, not enumerable (so
 * `Object.keys`, JSON and deep equality do not see it): a property read. A WeakMap was tried
 * first: every answer also brings new keys (today's point), the table grew between collections
 * and a lookup measured about ten times a property read. A key that cannot take a property
 * (frozen) gets its value made each time.
 */
export function memoByObject<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const slot = Symbol('memo');
  return (key) => {
    const held = (key as { [slot]?: V })[slot];
    if (held !== undefined) return held;
    const value = make(key);
    if (Object.isExtensible(key)) Object.defineProperty(key, slot, { value });
    return value;
  };
}
