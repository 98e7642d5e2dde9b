/**
 * What kind of value something is, for "expected X, got Y" messages: `null`, `undefined`,
 * `an array`, `an object`, `a string`, `a number`...
 */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return type === 'object' ? 'an object' : `a ${type}`;
}
