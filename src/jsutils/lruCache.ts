/**
 * A bounded cache that keeps what is used and forgets what is not.
 *
 * Two generations instead of an exact LRU list: hits in the young generation cost one Map
 * lookup and no reordering, which matters on the hot path of every request. When the young
 * generation is full it becomes the old one and the old one is dropped; an old entry that is
 * used again moves back to the young generation. So an entry survives as long as it is used
 * at least once every `capacity` insertions, and the cache never holds more than twice that.
 *
 * It is bounded in bytes too, when asked (`maxBytes`), for caches whose keys a client chooses.
 *
 * The last key found is also kept aside. Keys read from a request (a body, a header) are new
 * strings each time, whose hash a Map lookup must first compute; comparing with the last key
 * costs less, and clients send the same body or header again and again.
 */
/** How a cache weighs an entry, in bytes (an estimate: what the key and value keep alive). */
export type SizeOf<K, V> = (key: K, value: V) => number;

export interface LruCacheOptions<K, V> {
  /**
   * The most bytes the cache keeps (by `sizeOf`), both generations together: a client that can
   * choose keys (a query text, a header) can then fill it only so far, however large each key.
   * An entry weighing more than half of it is not kept at all. Default: no bound in bytes.
   */
  maxBytes?: number;
  /** Default: a string key's UTF-16 bytes, and a fixed 64 for the value. */
  sizeOf?: SizeOf<K, V>;
}

export class LruCache<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private youngBytes = 0;
  private oldBytes = 0;
  private lastKey: K | undefined = undefined;
  private lastValue: V | undefined = undefined;
  readonly capacity: number;
  /** The bytes one generation may hold: half of `maxBytes`. */
  private readonly generationBytes: number;
  private readonly sizeOf: SizeOf<K, V>;

  constructor(capacity: number, options: LruCacheOptions<K, V> = {}) {
    if (!Number.isInteger(capacity) || capacity < 0) {
      throw new TypeError(`LruCache: capacity must be a whole number of entries, 0 or more, got ${String(capacity)}.`);
    }
    const maxBytes = options.maxBytes ?? Infinity;
    if (!(maxBytes >= 0)) throw new TypeError(`LruCache: maxBytes must be a number of bytes, 0 or more, got ${String(maxBytes)}.`);
    this.capacity = capacity;
    this.generationBytes = maxBytes / 2;
    this.sizeOf = options.sizeOf ?? defaultSizeOf;
  }

  get(key: K): V | undefined {
    if (key === this.lastKey && this.lastValue !== undefined) return this.lastValue;
    let value = this.young.get(key);
    if (value === undefined) {
      value = this.old.get(key);
      if (value === undefined) return undefined;
      this.old.delete(key);
      this.oldBytes -= this.sizeOf(key, value);
      this.set(key, value);
    }
    this.lastKey = key;
    this.lastValue = value;
    return value;
  }

  set(key: K, value: V): void {
    if (this.capacity === 0) return;
    const bytes = this.sizeOf(key, value);
    if (bytes > this.generationBytes) return;
    const replaced = this.young.get(key);
    if (replaced !== undefined) {
      this.youngBytes -= this.sizeOf(key, replaced);
    } else if (this.young.size >= this.capacity || this.youngBytes + bytes > this.generationBytes) {
      this.old = this.young;
      this.oldBytes = this.youngBytes;
      this.young = new Map();
      this.youngBytes = 0;
      // The last key may have been in the generation just dropped.
      this.lastKey = this.lastValue = undefined;
    }
    this.young.set(key, value);
    this.youngBytes += bytes;
    if (key === this.lastKey) this.lastValue = value;
  }

  delete(key: K): void {
    const young = this.young.get(key);
    if (young !== undefined) {
      this.young.delete(key);
      this.youngBytes -= this.sizeOf(key, young);
    }
    const old = this.old.get(key);
    if (old !== undefined) {
      this.old.delete(key);
      this.oldBytes -= this.sizeOf(key, old);
    }
    if (key === this.lastKey) this.lastKey = this.lastValue = undefined;
  }

  get size(): number {
    return this.young.size + this.old.size;
  }

  /** The bytes held, by `sizeOf`. */
  get bytes(): number {
    return this.youngBytes + this.oldBytes;
  }
}

function defaultSizeOf(key: unknown): number {
  return (typeof key === 'string' ? key.length * 2 : 16) + 64;
}

/**
 * A pure function of a short text (a header value), remembered for the texts last used: clients
 * send few distinct values again and again, and each is worked out once. `compute` must not
 * return undefined (it would read as "not remembered").
 */
export function memoizeText<V>(compute: (text: string) => V, capacity = 256): (text: string) => V {
  // Header values are up to the header block's size: bounded in bytes too.
  const cache = new LruCache<string, V>(capacity, { maxBytes: 1 << 20 });
  return (text) => {
    let value = cache.get(text);
    if (value === undefined) {
      value = compute(text);
      cache.set(text, value);
    }
    return value;
  };
}
