/**
 * A Map that forgets its oldest entry beyond `max` entries: for per-instance copies whose entries
 * carry their own expiry, where a read must cost no more than a Map's (lru-cache's get also
 * moves the entry and checks its age).
 */
export class BoundedMap<K, V> extends Map<K, V> {
  readonly max: number;

  constructor(max: number) {
    super();
    this.max = max;
  }

  override set(key: K, value: V): this {
    if (!this.has(key) && this.size >= this.max) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return super.set(key, value);
  }
}
