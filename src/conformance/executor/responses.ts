/**
 * When two responses are the same, as the spec fixes them (section 7.1): `data` with its key order,
 * since fields are listed in the order they were asked for; whether `data` and `errors` are there
 * at all, exactly; `errors` as a set, since the spec does not order them, each error's keys in
 * whatever order they were written.
 */
import type { ExpectedResponse } from './kitFiles.ts';

/** The response as it goes over the wire: what a client would parse. */
export function onTheWire(result: unknown): ExpectedResponse {
  return JSON.parse(JSON.stringify(result) ?? 'null') as ExpectedResponse;
}

/** The parts of a response the spec fixes, as one string two equal responses share. */
export function comparableResponse(response: ExpectedResponse): string {
  const errors = (response.errors ?? []).map((error) => {
    const { message, locations, path, extensions, ...rest } = error;
    return JSON.stringify({ message, locations, path, extensions, ...rest });
  });
  return JSON.stringify({ keys: Object.keys(response ?? {}).sort(), data: response !== null && 'data' in response ? JSON.stringify(response.data) : undefined, errors: errors.sort() });
}

export function sameResponse(expected: ExpectedResponse, received: ExpectedResponse): boolean {
  return comparableResponse(expected) === comparableResponse(received);
}

/** Why `received` is not `expected`, in a few words: the first part of the response that differs. */
export function difference(expected: ExpectedResponse, received: ExpectedResponse): string {
  if (received === null || typeof received !== 'object') return 'the result is not an object';
  const keys = (response: ExpectedResponse) => Object.keys(response).sort().join(', ') || 'nothing';
  if (keys(expected) !== keys(received)) return `the response holds ${keys(received)}, not ${keys(expected)}`;
  if (JSON.stringify(expected.data) !== JSON.stringify(received.data)) {
    const sameKeysInOtherOrder = JSON.stringify(sortedKeys(expected.data)) === JSON.stringify(sortedKeys(received.data));
    return sameKeysInOtherOrder ? 'data holds the same entries in another order (fields must be in the order they were asked for)' : 'data differs';
  }
  return 'errors differ (compared as a set: message, locations, path, extensions)';
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]));
}
