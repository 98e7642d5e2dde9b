/**
 * A bounded cache that forgets the least recently used entry first. A `Map` keeps insertion
 * order, so re-inserting on every hit makes its first key the least recently used one.
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, V>();
  readonly capacity: number;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new TypeError(`LruCache: capacity must be a whole number of entries, 0 or more, got ${String(capacity)}.`);
    }
    this.capacity = capacity;
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    if (this.capacity === 0) return;
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) {
      this.entries.delete(this.entries.keys().next().value as K);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
