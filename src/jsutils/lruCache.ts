/**
 * A bounded cache that keeps what is used and forgets what is not.
 *
 * Two generations instead of an exact LRU list: hits in the young generation cost one Map
 * lookup and no reordering, which matters on the hot path of every request. When the young
 * generation is full it becomes the old one and the old one is dropped; an old entry that is
 * used again moves back to the young generation. So an entry survives as long as it is used
 * at least once every `capacity` insertions, and the cache never holds more than twice that.
 *
 * The last key found is also kept aside. Keys read from a request (a body, a header) are new
 * strings each time, whose hash a Map lookup must first compute; comparing with the last key
 * costs less, and clients send the same body or header again and again.
 */
export class LruCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private lastKey: K | undefined = undefined;
  private lastValue: V | undefined = undefined;
  readonly capacity: number;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new TypeError(`LruCache: capacity must be a whole number of entries, 0 or more, got ${String(capacity)}.`);
    }
    this.capacity = capacity;
  }

  get(key: K): V | undefined {
    if (key === this.lastKey && this.lastValue !== undefined) return this.lastValue;
    let value = this.young.get(key);
    if (value === undefined) {
      value = this.old.get(key);
      if (value === undefined) return undefined;
      this.old.delete(key);
      this.set(key, value);
    }
    this.lastKey = key;
    this.lastValue = value;
    return value;
  }

  set(key: K, value: V): void {
    if (this.capacity === 0) return;
    if (this.young.size >= this.capacity && !this.young.has(key)) {
      this.old = this.young;
      this.young = new Map();
      // The last key may have been in the generation just dropped.
      this.lastKey = this.lastValue = undefined;
    }
    this.young.set(key, value);
    if (key === this.lastKey) this.lastValue = value;
  }

  delete(key: K): void {
    this.young.delete(key);
    this.old.delete(key);
    if (key === this.lastKey) this.lastKey = this.lastValue = undefined;
  }

  get size(): number {
    return this.young.size + this.old.size;
  }
}

/**
 * A pure function of a short text (a header value), remembered for the texts last used: clients
 * send few distinct values again and again, and each is worked out once. `compute` must not
 * return undefined (it would read as "not remembered").
 */
export function memoizeText<V>(compute: (text: string) => V, capacity = 256): (text: string) => V {
  const cache = new LruCache<string, V>(capacity);
  return (text) => {
    let value = cache.get(text);
    if (value === undefined) {
      value = compute(text);
      cache.set(text, value);
    }
    return value;
  };
}
