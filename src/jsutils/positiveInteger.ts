import { describe } from './describe.ts';

/**
 * An option that must be a positive whole number (a count, a size, a number of milliseconds),
 * checked where it is read so that a mistake is a start-up error naming the option, in the same
 * words for every option.
 */
export function positiveInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new TypeError(`${name} must be a positive whole number, got ${typeof value === 'number' ? String(value) : describe(value)}.`);
  }
  return value;
}
