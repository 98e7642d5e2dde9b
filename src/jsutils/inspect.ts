/**
 * A short, human-readable rendering of any JavaScript value for error messages.
 *
 * Error messages are part of our contract: a drop-in for graphql-js must say exactly what it
 * says, so this renders values the way graphql-js's messages do (strings JSON-quoted, objects
 * as `{ a: 1 }`, at most ten array items and three levels deep, `toJSON` honoured).
 */
const MAX_ARRAY_ITEMS = 10;
const MAX_DEPTH = 2;

export function inspect(value: unknown): string {
  return formatValue(value, []);
}

function formatValue(value: unknown, seen: ReadonlyArray<unknown>): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'function':
      return value.name ? `[function ${value.name}]` : '[function]';
    case 'object':
      return formatObjectValue(value, seen);
    default:
      return String(value);
  }
}

function formatObjectValue(value: object | null, previouslySeen: ReadonlyArray<unknown>): string {
  if (value === null) return 'null';
  if (previouslySeen.includes(value)) return '[Circular]';
  const seen = [...previouslySeen, value];
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    const json: unknown = toJSON.call(value);
    if (json !== value) {
      return typeof json === 'string' ? json : formatValue(json, seen);
    }
  } else if (Array.isArray(value)) {
    return formatArray(value, seen);
  }
  return formatObject(value, seen);
}

function formatObject(object: object, seen: ReadonlyArray<unknown>): string {
  const entries = Object.entries(object);
  if (entries.length === 0) return '{}';
  if (seen.length > MAX_DEPTH) return '[' + objectTag(object) + ']';
  return '{ ' + entries.map(([key, value]) => key + ': ' + formatValue(value, seen)).join(', ') + ' }';
}

function formatArray(array: ReadonlyArray<unknown>, seen: ReadonlyArray<unknown>): string {
  if (array.length === 0) return '[]';
  if (seen.length > MAX_DEPTH) return '[Array]';
  const shown = Math.min(MAX_ARRAY_ITEMS, array.length);
  const remaining = array.length - shown;
  const items: string[] = [];
  for (let i = 0; i < shown; ++i) items.push(formatValue(array[i], seen));
  if (remaining === 1) items.push('... 1 more item');
  else if (remaining > 1) items.push(`... ${remaining} more items`);
  return '[' + items.join(', ') + ']';
}

function objectTag(object: object): string {
  const tag = Object.prototype.toString.call(object).replace(/^\[object /, '').replace(/]$/, '');
  if (tag === 'Object' && typeof object.constructor === 'function') {
    const name = object.constructor.name;
    if (typeof name === 'string' && name !== '') return name;
  }
  return tag;
}
