/**
 * What the kit accepts as a GraphQL execution result (the spec's "Response Format", section 7.1),
 * in whatever a transport carried it: a WebSocket `next` payload, an SSE `next` event, a part of a
 * multipart response, an element of a batch's answer.
 */

/** Why payload is not a GraphQL execution result (spec section 7.1), or null if it is one. */
export function executionResultProblem(payload: unknown): string | null {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 'the payload is not an object';
  const result = payload as Record<string, unknown>;
  if (!('data' in result) && !('errors' in result)) return 'the payload has neither data nor errors';
  if ('data' in result && result.data !== null && (typeof result.data !== 'object' || Array.isArray(result.data))) return 'data is not an object or null';
  if ('errors' in result) {
    const { errors } = result;
    if (!Array.isArray(errors) || errors.length === 0) return 'errors is not a non-empty list';
    if (errors.some((error) => typeof error !== 'object' || error === null || typeof (error as { message?: unknown }).message !== 'string')) return 'an error has no message';
  }
  const unknown = Object.keys(result).filter((key) => !['data', 'errors', 'extensions', 'hasNext', 'pending', 'incremental', 'completed'].includes(key));
  return unknown.length === 0 ? null : `the payload has entries an execution result does not have: ${unknown.join(', ')}`;
}
