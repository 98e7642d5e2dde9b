/**
 * The checks of results delivered as a stream, which graphql-http's audits do not cover:
 * GraphQL over Server-Sent Events in graphql-sse's distinct connections mode (one
 * `text/event-stream` response per operation: `next` events, then `complete`).
 *
 * A server that does not speak it (it answers such a request with 4xx, or with one JSON result)
 * gets these checks skipped, saying what it answered: SSE is optional. A server that answers
 * `text/event-stream` must follow the protocol, and a 5xx is a failure.
 */
import type { Check, CheckOutcome } from '../check.ts';
import { exchange } from './exchange.ts';
import type { Exchange, HttpTargetOptions, ReceivedResponse } from './exchange.ts';
import { executionResultProblem } from '../executionResult.ts';

const SSE_RULE = 'https://github.com/enisdenjo/graphql-sse/blob/master/PROTOCOL.md#distinct-connections-mode';

/** One event of an event stream. */
export interface StreamEvent {
  event: string;
  data: string;
}

/** The events of an event stream's text (the SSE field rules; comments skipped). */
export function parseEvents(text: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const block of text.replace(/\r\n?/g, '\n').split('\n\n').slice(0, -1)) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':') || line === '') continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = value;
      else if (field === 'data') data.push(value);
    }
    if (event !== 'message' || data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return events;
}

/** POSTs `query` asking for an event stream; reads until `enough` events or the end. */
function openStream(target: HttpTargetOptions, query: string, enough = Infinity): Promise<Exchange> {
  return exchange(
    target,
    { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify({ query }) },
    (text) => parseEvents(text).length >= enough,
  );
}

/** Outcome for a response that is not an event stream: a skip (SSE is optional), or a failure for a 5xx or no answer. */
function notAStream(answer: Exchange): CheckOutcome | null {
  const { received, sent } = answer;
  if ('error' in received) return { status: 'fail', evidence: { why: `No answer: ${received.error}.`, sent, received } };
  if (received.status >= 500) return { status: 'fail', evidence: { why: `Answered ${received.status} to a request for an event stream.`, sent, received } };
  if (received.status === 200 && (received.headers['content-type'] ?? '').startsWith('text/event-stream')) return null;
  return { status: 'skip', evidence: { why: `The server does not serve GraphQL over SSE: it answered ${received.status} ${received.headers['content-type'] ?? '(no content-type)'} to Accept: text/event-stream.`, sent, received } };
}

/** Why the `next` events are not execution results, or null if they are. */
function nextProblem(events: StreamEvent[]): string | null {
  for (const [index, each] of events.entries()) {
    if (each.event !== 'next') continue;
    let payload: unknown;
    try {
      payload = JSON.parse(each.data);
    } catch {
      return `the data of event ${index + 1} is not JSON`;
    }
    const problem = executionResultProblem(payload);
    if (problem !== null) return `event ${index + 1}: ${problem}`;
  }
  return null;
}

const fail = (answer: Exchange, why: string, expected: unknown): CheckOutcome => ({ status: 'fail', evidence: { why, sent: answer.sent, received: answer.received, expected } });

const queryStream: Check<HttpTargetOptions> = {
  id: 'http.sse.query-next-complete',
  title: 'A query asked for as text/event-stream streams its result as a next event, then a complete event, then ends',
  rule: SSE_RULE,
  requirement: 'MUST',
  async run(target) {
    if (target.query === undefined) return { status: 'skip', evidence: { why: 'Needs a query of the server\'s schema: give one with the `query` option (--query on the command line).' } };
    const answer = await openStream(target, target.query);
    const skip = notAStream(answer);
    if (skip !== null) return skip;
    const received = answer.received as ReceivedResponse;
    const events = parseEvents(received.body);
    const names = events.map((each) => each.event);
    const expected = 'event: next (an execution result), then event: complete, then the end of the response';
    if (names.length !== 2 || names[0] !== 'next' || names[1] !== 'complete') return fail(answer, `Expected next then complete; got ${names.length === 0 ? 'no event' : names.join(', ')}.`, expected);
    const problem = nextProblem(events);
    if (problem !== null) return fail(answer, `The next event does not carry an execution result: ${problem}.`, expected);
    return received.ended === 'by the server' ? { status: 'pass' } : fail(answer, 'The response did not end after the complete event.', expected);
  },
};

const subscriptionStream: Check<HttpTargetOptions> = {
  id: 'http.sse.subscription-next',
  title: 'A subscription asked for as text/event-stream streams each result as a next event carrying an execution result',
  rule: SSE_RULE,
  requirement: 'MUST',
  async run(target) {
    if (target.subscription === undefined) return { status: 'skip', evidence: { why: 'Needs a subscription of the server\'s schema that emits events on its own: give one with the `subscription` option (--subscription on the command line).' } };
    const answer = await openStream(target, target.subscription, 2);
    const skip = notAStream(answer);
    if (skip !== null) return skip;
    const events = parseEvents((answer.received as ReceivedResponse).body);
    const expected = 'event: next with an execution result as data, for each event of the subscription';
    if (!events.some((each) => each.event === 'next')) return fail(answer, 'No next event arrived.', expected);
    const unknown = events.find((each) => each.event !== 'next' && each.event !== 'complete');
    if (unknown !== undefined) return fail(answer, `An event of a type graphql-sse does not have: "${unknown.event}".`, expected);
    const problem = nextProblem(events);
    return problem === null ? { status: 'pass' } : fail(answer, `A next event does not carry an execution result: ${problem}.`, expected);
  },
};

const validationInStream: Check<HttpTargetOptions> = {
  id: 'http.sse.validation-errors-in-stream',
  title: 'A document failing validation, asked for as text/event-stream, is answered with an event stream whose next event carries the errors',
  rule: SSE_RULE,
  requirement: 'MUST',
  async run(target) {
    const probe = await openStream(target, '{ __typename }');
    const skip = notAStream(probe);
    if (skip !== null) return skip;
    const answer = await openStream(target, '{ conformanceFieldThatDoesNotExist }');
    const expected = '200 text/event-stream: event: next with { errors }, then event: complete';
    const { received } = answer;
    if ('error' in received || received.status !== 200 || !(received.headers['content-type'] ?? '').startsWith('text/event-stream')) {
      return fail(answer, 'The validation errors were not reported through an event stream.', expected);
    }
    const events = parseEvents(received.body);
    const first = events[0];
    let errors: unknown;
    try {
      errors = first?.event === 'next' ? (JSON.parse(first.data) as { errors?: unknown }).errors : undefined;
    } catch {
      errors = undefined;
    }
    if (!Array.isArray(errors) || errors.length === 0) return fail(answer, 'The first event is not a next event carrying errors.', expected);
    return events[events.length - 1]?.event === 'complete' ? { status: 'pass' } : fail(answer, 'The stream did not end with a complete event.', expected);
  },
};

export const streamChecks: Array<Check<HttpTargetOptions>> = [queryStream, subscriptionStream, validationInStream];
