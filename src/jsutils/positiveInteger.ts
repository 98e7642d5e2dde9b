import { describe } from './describe.ts';

/**
 * An option that must be a positive whole number (a count, a size, a number of milliseconds;
 * at most 2^53 - 1, where every whole number is exact),
 * checked where it is read so that a mistake is a start-up error naming the option, in the same
 * words for every option: the value shown when it is a number or a string (quoted, so that "3"
 * reads as the string it is), its kind otherwise.
 */
export function positiveInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`${name} must be a positive whole number, got ${shown(value)}.`);
  }
  return value;
}

function shown(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value);
  return describe(value);
}
