/**
 * stringifySmall: JSON.stringify's text, written out in JavaScript, for small values.
 *
 * Why: on Node 20 every call to the native JSON.stringify pays a fixed price (entering C++,
 * setting up its serializer), and more inside a busy server, where its code
 * is no longer in the CPU's caches by the time the next response needs it. For a response like
 * `{"data":{"hello":"world"}}` that price is most of the serialization, and a measurable share
 * of the whole request. A walk in JavaScript over a handful of values costs less. For large
 * values the native serializer is faster, so callers use this one only for results they know to
 * be small (see the handler's use).
 *
 * Same text as JSON.stringify, for any value, following its algorithm step by step (ECMA-262
 * SerializeJSONProperty): `toJSON` is read once and called with the property's key; what it
 * returns is written without asking for its `toJSON` again; objects are written by their own
 * enumerable string keys (Object.keys order, read once), arrays by index up to the length read
 * once; strings that need escaping, boxed primitives and BigInts go to the native serializer,
 * which gives their exact text or throws its exact TypeError. A value nested deeper than
 * MAX_DEPTH (or circular) is given whole to the native serializer, which writes it or throws its
 * own error; its getters and `toJSON` methods then run a second time.
 *
 * Two exotic differences remain, both because telling a boxed primitive from a plain object
 * costs a call into C++, so it is asked only of objects whose prototype is not
 * Object.prototype or null: a Proxy's `getPrototypeOf` trap runs once (the native serializer never
 * asks), and a boxed primitive whose prototype was replaced by Object.prototype or null is written
 * as an object.
 */
import { types } from 'node:util';

const MAX_DEPTH = 64;

/** Characters JSON.stringify escapes: quote, backslash, control characters, and surrogates (lone ones are escaped, pairs are not: the native call decides). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** Thrown (once, then caught) when the walk goes deeper than MAX_DEPTH. */
const TOO_DEEP: unique symbol = Symbol('too deep');

let depth = 0;

export function stringifySmall(value: unknown): string | undefined {
  // The top-level value is the member '' of JSON.stringify's own holder.
  return stringifyMember(value, '');
}

/**
 * The text of one value as the property `key` of its holder (undefined: JSON leaves it out),
 * exactly as JSON.stringify writes a member: for code that writes the holder itself (see
 * compileStringify.ts).
 */
export function stringifyMember(value: unknown, key: string): string | undefined {
  // A primitive other than a BigInt has no toJSON to ask for and nothing to walk (JSON.stringify
  // looks up toJSON on objects and BigInts only): the usual value of a result field.
  if (value === null || (typeof value !== 'object' && typeof value !== 'function' && typeof value !== 'bigint')) return serialized(value);
  // A toJSON or getter may call this again in the middle of a walk: each walk keeps its own depth.
  const outer = depth;
  depth = 0;
  try {
    return property(value, key);
  } catch (error) {
    if (error !== TOO_DEEP) throw error;
    // The native text of the member, with its key as toJSON's argument: a holder without a
    // prototype, whose braces and key are cut off again.
    const holder = Object.create(null) as Record<string, unknown>;
    holder[key] = value;
    const text = JSON.stringify(holder);
    return text.length === 2 ? undefined : text.slice(JSON.stringify(key).length + 2, -1);
  } finally {
    depth = outer;
  }
}

/** One value, as the property `key` of its holder: its text, or undefined when JSON leaves it out. */
function property(value: unknown, key: string | number): string | undefined {
  // Functions are objects too: JSON.stringify asks them for a toJSON (and leaves them out otherwise).
  if ((typeof value === 'object' && value !== null) || typeof value === 'function' || typeof value === 'bigint') {
    const toJSON: unknown = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return serialized(toJSON.call(value, typeof key === 'number' ? String(key) : key));
  }
  return serialized(value);
}

/** A value whose `toJSON` (if any) has been applied. */
function serialized(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return Number.isFinite(value) ? '' + value : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return array(value);
      const prototype: unknown = Object.getPrototypeOf(value);
      // Boxed primitives are written as what they box (after their valueOf or toString): the
      // native serializer does that, and nothing in them has a toJSON to call with a key.
      if (prototype !== Object.prototype && prototype !== null && types.isBoxedPrimitive(value)) return JSON.stringify(value);
      return object(value as Record<string, unknown>);
    }
    case 'bigint':
      // Throws the native TypeError (a BigInt's toJSON, if any, was called above).
      return JSON.stringify(value);
    default:
      // undefined, functions and symbols: left out of objects, null in arrays.
      return undefined;
  }
}

function object(value: Record<string, unknown>): string {
  if (++depth > MAX_DEPTH) throw TOO_DEEP;
  const keys = Object.keys(value);
  let text = '{';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const member = property(value[key], key);
    if (member === undefined) continue;
    text += (text.length === 1 ? '' : ',') + quote(key) + ':' + member;
  }
  depth--;
  return text + '}';
}

function array(value: unknown[]): string {
  if (++depth > MAX_DEPTH) throw TOO_DEEP;
  // Read once, as the native serializer does, even if a getter or toJSON changes it meanwhile.
  const length = value.length;
  let text = '[';
  for (let i = 0; i < length; i++) {
    if (i > 0) text += ',';
    text += property(value[i], i) ?? 'null';
  }
  depth--;
  return text + ']';
}

/** A string as JSON text. */
function quote(text: string): string {
  if (text.length <= 32) {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return JSON.stringify(text);
    }
    return '"' + text + '"';
  }
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : '"' + text + '"';
}
