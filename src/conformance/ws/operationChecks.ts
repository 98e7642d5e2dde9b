/**
 * The checks of operations: Subscribe, Next, Error and Complete in both directions. Those that
 * need an operation of the server's schema take it from the options (`query`, `subscription`) and
 * are skipped, never passed, without it; the rest use documents valid or invalid in any schema.
 */
import type { Check } from '../check.ts';
import { PASS, describeClose, fail, isMessage, needs, onAcknowledged, protocolRule } from './outcomes.ts';
import type { WsTargetOptions } from './outcomes.ts';
import type { ProtocolSocket, Received } from './socket.ts';
import { executionResultProblem } from '../executionResult.ts';

/** A document that fails validation against any schema: the field does not exist. */
const INVALID_QUERY = '{ conformanceFieldThatDoesNotExist }';

/** Messages about operation `id`, read until one of type `until` (included), a close or the timeout. */
async function messagesFor(socket: ProtocolSocket, id: string, until: readonly string[]): Promise<Received[]> {
  const seen: Received[] = [];
  const deadline = Date.now() + socket.timeoutMs;
  for (;;) {
    const message = await socket.nextMatching((each) => typeof each === 'object' && each.id === id, Math.max(0, deadline - Date.now()));
    if (message === null) return seen;
    seen.push(message);
    if (typeof message === 'object' && until.includes(String(message.type))) return seen;
  }
}

const queryNextThenComplete: Check<WsTargetOptions> = {
  id: 'ws.query.next-then-complete',
  title: "A query's result comes as one Next, followed by Complete",
  rule: protocolRule('single-result-operation'),
  requirement: 'MUST',
  run: async (target) => {
    const { query } = target;
    if (query === undefined) return needs('query', 'a query of the server\'s schema');
    return onAcknowledged(target, async (socket) => {
      socket.send({ id: 'query-1', type: 'subscribe', payload: { query } });
      const seen = await messagesFor(socket, 'query-1', ['complete', 'error']);
      const types = seen.map((message) => (typeof message === 'object' ? message.type : message));
      if (types.length === 2 && types[0] === 'next' && types[1] === 'complete') return PASS;
      return fail(socket, `Expected next then complete for the query; got ${types.length === 0 ? 'nothing' : types.join(', ')}.`, ['next', 'complete']);
    });
  },
};

/** The first Next payload of `document`, checked as an execution result; null when it is one. */
async function firstNextProblem(socket: ProtocolSocket, id: string, document: string): Promise<string | null> {
  socket.send({ id, type: 'subscribe', payload: { query: document } });
  const [first] = await messagesFor(socket, id, ['next', 'complete', 'error']);
  if (!isMessage(first ?? null, 'next', id)) return `the first message for "${id}" is not next`;
  socket.send({ id, type: 'complete' });
  const problem = executionResultProblem((first as { payload?: unknown }).payload);
  return problem === null ? null : `the next payload for "${id}": ${problem}`;
}

const nextIsExecutionResult: Check<WsTargetOptions> = {
  id: 'ws.next.execution-result',
  title: 'Next carries an execution result (data and/or errors) for a query and a subscription',
  rule: protocolRule('next'),
  requirement: 'MUST',
  run: async (target) => {
    const documents = [target.query, target.subscription].filter((document): document is string => document !== undefined);
    if (documents.length === 0) return needs('query', 'a query or a subscription of the server\'s schema (`--subscription` works too)');
    return onAcknowledged(target, async (socket) => {
      for (const [index, document] of documents.entries()) {
        const problem = await firstNextProblem(socket, `next-${index + 1}`, document);
        if (problem !== null) return fail(socket, `Expected an execution result: ${problem}.`, { type: 'next', payload: { data: '…' } });
      }
      return PASS;
    });
  },
};

/** Sends the invalid document and reads its answer: the error message, or what came instead. */
async function invalidOperation(socket: ProtocolSocket, id: string): Promise<{ error: Received | null; seen: Received[] }> {
  socket.send({ id, type: 'subscribe', payload: { query: INVALID_QUERY } });
  const seen = await messagesFor(socket, id, ['next', 'complete', 'error']);
  const error = seen.find((message) => isMessage(message, 'error', id)) ?? null;
  return { error, seen };
}

/** Why an Error message's payload is not a list of GraphQL errors, or null if it is one. */
function errorPayloadProblem(payload: unknown): string | null {
  if (!Array.isArray(payload) || payload.length === 0) return 'its payload is not a non-empty list of errors';
  if (payload.some((error) => typeof error !== 'object' || error === null || typeof (error as { message?: unknown }).message !== 'string')) return 'an error in its payload has no message';
  return null;
}

const errorForInvalidOperation: Check<WsTargetOptions> = {
  id: 'ws.error.invalid-operation',
  title: 'A Subscribe whose document fails validation is answered with Error carrying the list of GraphQL errors',
  rule: protocolRule('error'),
  requirement: 'MUST',
  run: (target) =>
    onAcknowledged(target, async (socket) => {
      const { error, seen } = await invalidOperation(socket, 'invalid-1');
      if (error === null) return fail(socket, `Expected an error message for a document that fails validation; got ${seen.length === 0 ? `nothing (${describeClose(await socket.closed(0))})` : 'other messages'}.`, { id: 'invalid-1', type: 'error', payload: [{ message: '…' }] });
      const problem = errorPayloadProblem((error as { payload?: unknown }).payload);
      return problem === null ? PASS : fail(socket, `The error message is malformed: ${problem}.`, { id: 'invalid-1', type: 'error', payload: [{ message: '…' }] });
    }),
};

const noCompleteAfterError: Check<WsTargetOptions> = {
  id: 'ws.error.no-complete-after-error',
  title: 'Error ends the operation: no Complete (or anything else) follows it',
  rule: protocolRule('complete'),
  requirement: 'MUST',
  run: (target) =>
    onAcknowledged(target, async (socket) => {
      const { error } = await invalidOperation(socket, 'invalid-2');
      if (error === null) return { status: 'skip', evidence: { why: 'The server sent no error message for an invalid document (see ws.error.invalid-operation).' } };
      const after = await socket.settle();
      const more = (after ?? []).filter((message) => typeof message === 'object' && message.id === 'invalid-2');
      if (after !== null && more.length === 0) return PASS;
      if (after === null) return fail(socket, `Expected no message for the operation after its error message, and a pong to the ping sent next; ${describeClose(await socket.closed(0))} and no pong came.`);
      return fail(socket, 'Messages for the operation followed its error message.');
    }),
};

const completedIdIgnored: Check<WsTargetOptions> = {
  id: 'ws.complete.completed-id-ignored',
  title: 'Complete for an operation the server already ended is ignored: no answer, the socket stays open',
  rule: protocolRule('invalid-message'),
  requirement: 'MUST',
  run: (target) =>
    onAcknowledged(target, async (socket) => {
      const { error } = await invalidOperation(socket, 'invalid-3');
      if (error === null) return { status: 'skip', evidence: { why: 'The server sent no error message for an invalid document, so no operation was ended (see ws.error.invalid-operation).' } };
      socket.send({ id: 'invalid-3', type: 'complete' });
      const after = await socket.settle();
      if (after === null) return fail(socket, `Expected the server to ignore complete for an ended operation and answer the ping sent next; ${describeClose(await socket.closed(0))} and no pong came.`);
      return after.length === 0 ? PASS : fail(socket, 'Expected no answer to complete for an ended operation.');
    }),
};

export const operationChecks: Array<Check<WsTargetOptions>> = [queryNextThenComplete, nextIsExecutionResult, errorForInvalidOperation, noCompleteAfterError, completedIdIgnored];
