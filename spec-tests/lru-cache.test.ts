/**
 * LruCache, the bounded cache behind the handler's document, body, Accept and Content-Type
 * caches: what it keeps, what it forgets, and that the last key it kept aside (for keys that
 * are new strings with the same text) never answers with a value the cache no longer holds.
 */
import { describe, expect, it } from 'vitest';
import { LruCache, memoizeText } from '../src/jsutils/lruCache.ts';

/** The same text as a different string object, as a request's body or header would be. */
const fresh = (text: string) => (' ' + text).slice(1);

describe('LruCache', () => {
  it('finds a key by its text, whichever string object asks', () => {
    const cache = new LruCache<string, number>(4);
    cache.set('{ hello }', 1);
    expect(cache.get(fresh('{ hello }'))).toBe(1);
    expect(cache.get(fresh('{ hello }'))).toBe(1);
    expect(cache.get('{ other }')).toBeUndefined();
  });

  it('answers the new value after a key is set again, also for the key it last found', () => {
    const cache = new LruCache<string, string>(4);
    cache.set('a', 'first');
    expect(cache.get('a')).toBe('first');
    cache.set('a', 'second');
    expect(cache.get('a')).toBe('second');
  });

  it('keeps a key used once every capacity insertions, and forgets one that is not', () => {
    const cache = new LruCache<string, number>(2);
    cache.set('kept', 0);
    cache.set('forgotten', 1);
    for (let i = 0; i < 6; i++) {
      expect(cache.get('kept')).toBe(0);
      cache.set(`filler${i}`, i);
    }
    expect(cache.get('forgotten')).toBeUndefined();
    expect(cache.size).toBeLessThanOrEqual(4);
  });

  it('does not answer from the last key found once that key has been dropped', () => {
    const cache = new LruCache<string, number>(1);
    cache.set('a', 1);
    expect(cache.get('a')).toBe(1);
    cache.set('b', 2); // 'a' moves to the old generation
    cache.set('c', 3); // and the old generation, 'a' with it, is dropped
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')).toBe(3);
  });

  it('stores nothing with a capacity of 0, and refuses a capacity that is not a whole number', () => {
    const cache = new LruCache<string, number>(0);
    cache.set('a', 1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(() => new LruCache(1.5)).toThrow('LruCache: capacity must be a whole number of entries, 0 or more, got 1.5.');
  });
});

describe('LruCache bounded in bytes', () => {
  const sizeOf = (key: string) => key.length;

  it('holds no more than maxBytes, however the keys are chosen, and forgets the oldest generation first', () => {
    const cache = new LruCache<string, number>(1000, { maxBytes: 100, sizeOf });
    for (let i = 0; i < 50; i++) cache.set(`${i}`.padStart(10, 'x'), i);
    expect(cache.bytes).toBeLessThanOrEqual(100);
    expect(cache.size).toBe(cache.bytes / 10);
    expect(cache.get('x'.repeat(8) + '49')).toBe(49);
    expect(cache.get('x'.repeat(9) + '0')).toBeUndefined();
  });

  it('keeps nothing that weighs more than half of maxBytes', () => {
    const cache = new LruCache<string, number>(10, { maxBytes: 100, sizeOf });
    cache.set('y'.repeat(51), 1);
    expect(cache.get('y'.repeat(51))).toBeUndefined();
    expect(cache.bytes).toBe(0);
    cache.set('y'.repeat(50), 2);
    expect(cache.get('y'.repeat(50))).toBe(2);
  });

  it('counts an entry once when it is set again, moved between generations or deleted', () => {
    const cache = new LruCache<string, number>(2, { maxBytes: 1000, sizeOf });
    cache.set('aaaa', 1);
    cache.set('aaaa', 2);
    expect(cache.bytes).toBe(4);
    cache.set('bb', 3);
    cache.set('c', 4); // the young generation is full: 'aaaa' and 'bb' become the old one
    expect(cache.bytes).toBe(7);
    expect(cache.get('aaaa')).toBe(2); // back to the young generation
    expect(cache.bytes).toBe(7);
    cache.delete('bb');
    cache.delete('aaaa');
    expect(cache.bytes).toBe(1);
  });

  it('refuses a maxBytes that is not a number of bytes', () => {
    expect(() => new LruCache(1, { maxBytes: -1 })).toThrow('LruCache: maxBytes must be a number of bytes, 0 or more, got -1.');
  });
});

describe('memoizeText', () => {
  it('works a text out once while it is used, null and false included, and again once forgotten', () => {
    const calls: string[] = [];
    const verdict = memoizeText((text: string) => {
      calls.push(text);
      return text === 'none' ? null : text === 'no' ? false : text.length;
    }, 2);
    for (const text of ['none', 'no', 'none', 'no', 'abc']) verdict(text);
    expect([verdict('none'), verdict('no'), verdict('abc')]).toEqual([null, false, 3]);
    expect(calls).toEqual(['none', 'no', 'abc']);
    // Two more texts push the first three out of both generations.
    verdict('x');
    verdict('yy');
    verdict('zzz');
    expect(verdict('none')).toBeNull();
    expect(calls).toEqual(['none', 'no', 'abc', 'x', 'yy', 'zzz', 'none']);
  });
});
