/** Small assertions the suites share. */
import { expect } from 'vitest';

/** What a promise rejected with; fails when it fulfils. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    const value = await promise;
    throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
  } catch (error) {
    return error;
  }
}

/** Asserts that `run` throws a TypeError with exactly `message`. */
export function expectTypeError(run: () => unknown, message: string): void {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(TypeError);
  expect((thrown as TypeError).message).toBe(message);
}
