/**
 * The JSON text of a subscription's result, made once however many subscribers it goes to:
 * shared subscriptions (server/sharedSubscriptions.ts) hand every member of a group the same
 * result object, so at 10,000 subscribers one event is serialized once, not 10,000 times.
 */
import type { ExecutionResult } from 'graphql';

const texts = new WeakMap<ExecutionResult, string>();

export function sharedResultText(result: ExecutionResult): string {
  let text = texts.get(result);
  if (text === undefined) {
    text = JSON.stringify(result);
    texts.set(result, text);
  }
  return text;
}
