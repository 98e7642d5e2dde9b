/**
 * What a server does with requests beyond one ordinary operation, which graphql-http's audits do
 * not cover: a batch (a JSON array of requests), and documents too deep or too large. None of it
 * is in the GraphQL over HTTP spec as a MUST; what every server owes its clients is a clear answer
 * (a result, or a 4xx saying why), never a 5xx or a dropped connection, which a client cannot
 * tell from a crash. A pass says which of the accepted answers the server gave.
 */
import type { Check, CheckOutcome } from '../check.ts';
import { executionResultProblem } from '../executionResult.ts';
import { DEFAULT_TIMEOUT_MS, exchange, firstErrorMessage, jsonBody } from './exchange.ts';
import type { Exchange, HttpTargetOptions } from './exchange.ts';

const SPEC = 'https://graphql.github.io/graphql-over-http/draft/';
const JSON_REQUEST = { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json;q=0.9' };

/** A document nested `depth` levels deep (`{ a { a { … } } }`): invalid in most schemas, and deep in all. */
export function deepDocument(depth: number): string {
  return `${'{ a '.repeat(depth)}${'}'.repeat(depth)}`;
}

/** A document of about `bytes` characters: `__typename` under as many aliases. */
export function largeDocument(bytes: number): string {
  const field = (index: number) => `a${index}: __typename `;
  const count = Math.ceil(bytes / field(99999).length);
  return `{ ${Array.from({ length: count }, (_, index) => field(index)).join('')}}`;
}

const fail = (answer: Exchange, why: string, expected: unknown): CheckOutcome => ({ status: 'fail', evidence: { why, sent: answer.sent, received: answer.received, expected } });

/** A pass that says which answer the server gave. */
const passBecause = (why: string): CheckOutcome => ({ status: 'pass', evidence: { why } });

/**
 * The outcome for a request the server may execute or refuse: a refusal is a 4xx (with GraphQL
 * errors when its body is JSON; 413 may have any body), an execution is a JSON result.
 */
function clearAnswer(answer: Exchange, expected: string): CheckOutcome {
  const { received } = answer;
  if ('error' in received) return fail(answer, `No answer: ${received.error}.`, expected);
  const body = jsonBody(received);
  const message = firstErrorMessage(body);
  if (received.status === 413) return passBecause(`Refused with 413${message === undefined ? '' : `: ${message}`}.`);
  if (received.status >= 400 && received.status < 500) {
    return message === undefined ? fail(answer, `Refused with ${received.status} but no GraphQL errors in the body.`, expected) : passBecause(`Refused with ${received.status}: ${message}`);
  }
  if (received.status === 200 && body !== undefined && executionResultProblem(body) === null) {
    return passBecause(message === undefined ? 'Executed: 200 with data.' : `Answered 200 with errors: ${message}`);
  }
  const what = received.status >= 500 ? ' (a server error)' : body === undefined ? ' with a body that is not JSON' : ' with a body that is not an execution result';
  return fail(answer, `Answered ${received.status}${what}.`, expected);
}

const batching: Check<HttpTargetOptions> = {
  id: 'http.batching.array',
  title: 'A batch (a JSON array of requests) is answered with an array of as many results, or refused with a 4xx and errors',
  rule: `${SPEC}#sec-POST`,
  requirement: 'SHOULD',
  async run(target) {
    const query = target.query ?? '{ __typename }';
    const answer = await exchange(target, { method: 'POST', headers: JSON_REQUEST, body: JSON.stringify([{ query }, { query }]) });
    const expected = '200 with a JSON array of 2 execution results, or a 4xx with GraphQL errors';
    const { received } = answer;
    if ('error' in received) return fail(answer, `No answer: ${received.error}.`, expected);
    const body = jsonBody(received);
    if (received.status === 200 && Array.isArray(body)) {
      if (body.length !== 2) return fail(answer, `Answered an array of ${body.length} results to a batch of 2.`, expected);
      const problem = body.map(executionResultProblem).find((each) => each !== null);
      return problem === undefined ? passBecause('Batching supported: an array of 2 results.') : fail(answer, `An element of the answer is not an execution result: ${problem}.`, expected);
    }
    const message = firstErrorMessage(body);
    if (received.status >= 400 && received.status < 500 && message !== undefined) return passBecause(`Batching refused with ${received.status}: ${message}`);
    return fail(answer, `Answered ${received.status} ${Array.isArray(body) ? 'with an array' : body === undefined ? 'with a body that is not JSON' : 'with one object'}, neither an array of results nor a 4xx with errors.`, expected);
  },
};

const deepDocumentCheck: Check<HttpTargetOptions> = {
  id: 'http.limits.deep-document',
  title: 'A document nested 1,000 levels deep is refused with a 4xx and errors (or answered with errors), never a 5xx or a dropped connection',
  rule: `${SPEC}#sec-application-graphql-response-json`,
  requirement: 'SHOULD',
  async run(target) {
    const answer = await exchange(target, { method: 'POST', headers: JSON_REQUEST, body: JSON.stringify({ query: deepDocument(1000) }) });
    return clearAnswer(answer, 'a 4xx with GraphQL errors (400), or 200 with errors');
  },
};

const largeDocumentCheck: Check<HttpTargetOptions> = {
  id: 'http.limits.large-document',
  title: 'A 2 MiB document is refused with a 4xx (413, or 400 with errors) or executed (waiting at least 25 s), never a 5xx or a dropped connection',
  rule: `${SPEC}#sec-application-graphql-response-json`,
  requirement: 'SHOULD',
  async run(target) {
    // A server without a size limit executes the whole document, which takes seconds: that is an
    // answer too, so this one check waits at least 25 s for it (within runChecks' default bound).
    const patient = { ...target, timeoutMs: Math.max(target.timeoutMs ?? DEFAULT_TIMEOUT_MS, 25_000) };
    const answer = await exchange(patient, { method: 'POST', headers: JSON_REQUEST, body: JSON.stringify({ query: largeDocument(2 * 1024 * 1024) }) });
    return clearAnswer(answer, '413, a 4xx with GraphQL errors, or 200 with a result');
  },
};

export const limitChecks: Array<Check<HttpTargetOptions>> = [batching, deepDocumentCheck, largeDocumentCheck];
