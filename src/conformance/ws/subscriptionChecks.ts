/**
 * The checks that need a subscription which stays active and emits on its own (the `subscription`
 * option): a second Subscribe with its id closes the socket with 4409, and Complete from the client
 * stops its events. When the given subscription ends by itself before the rule can be seen, the
 * check is skipped and says so: a subscription that ended proves nothing about either rule.
 */
import type { Check, CheckOutcome } from '../check.ts';
import { DEFAULT_TIMEOUT_MS, PASS, describeClose, fail, isMessage, needs, onAcknowledged, protocolRule } from './outcomes.ts';
import type { WsTargetOptions } from './outcomes.ts';
import type { ProtocolSocket, Received } from './socket.ts';

const NEEDS = 'a subscription of the server\'s schema that emits events on its own';

/** The skip of a check whose subscription ended on its own, or was refused. */
function endedOnItsOwn(message: Received, what: string): CheckOutcome {
  return { status: 'skip', evidence: { why: `The subscription given ended on its own (${JSON.stringify(message)}) ${what}; give one that keeps emitting.`, received: message } };
}

const duplicateId: Check<WsTargetOptions> = {
  id: 'ws.subscribe.duplicate-id-4409',
  title: 'Subscribe with the id of an active subscription closes the socket with 4409',
  rule: protocolRule('subscribe'),
  requirement: 'MUST',
  run: async (target) => {
    const { subscription } = target;
    if (subscription === undefined) return needs('subscription', NEEDS);
    return onAcknowledged(target, async (socket) => {
      socket.send({ id: 'sub-1', type: 'subscribe', payload: { query: subscription } });
      const before = await socket.settle();
      if (before === null) return fail(socket, `Expected a pong to the ping sent after the first subscribe; ${describeClose(await socket.closed(0))} and no pong came.`);
      const ended = before.find((message) => isMessage(message, 'complete', 'sub-1') || isMessage(message, 'error', 'sub-1'));
      if (ended !== undefined) return endedOnItsOwn(ended, 'before the second subscribe');
      socket.send({ id: 'sub-1', type: 'subscribe', payload: { query: subscription } });
      const closed = await socket.closed();
      if (closed?.code === 4409) return PASS;
      // A server may read its socket's messages concurrently: the first subscription may have
      // ended between the pong and the duplicate, which is then no duplicate at all.
      const endedLater = socket.transcript().received.messages.find((message) => isMessage(message, 'complete', 'sub-1') || isMessage(message, 'error', 'sub-1'));
      if (endedLater !== undefined && closed === null) return endedOnItsOwn(endedLater, 'around the second subscribe');
      return fail(socket, `Expected the server to close the socket with 4409 on a second subscribe with the id "sub-1"; ${describeClose(closed)}.`, { closeCode: 4409 });
    });
  },
};

/** Reads the next two events of `id`, with the time between them; or what came instead. */
async function twoEvents(socket: ProtocolSocket, id: string): Promise<{ gapMs: number } | { instead: Received | null }> {
  const forId = (message: Received): boolean => typeof message === 'object' && message.id === id;
  const first = await socket.nextMatching(forId);
  if (!isMessage(first, 'next')) return { instead: first };
  const firstAt = Date.now();
  const second = await socket.nextMatching(forId);
  if (!isMessage(second, 'next')) return { instead: second };
  return { gapMs: Date.now() - firstAt };
}

/** Everything about `id` that arrives within ms. */
async function quietPeriod(socket: ProtocolSocket, id: string, ms: number): Promise<Received[]> {
  const deadline = Date.now() + ms;
  const seen: Received[] = [];
  for (;;) {
    const message = await socket.nextMatching((each) => typeof each === 'object' && each.id === id, Math.max(0, deadline - Date.now()));
    if (message === null) return seen;
    seen.push(message);
  }
}

const clientCompleteStops: Check<WsTargetOptions> = {
  id: 'ws.complete.client-stops-events',
  title: 'Complete from the client stops the subscription: no Next follows once the server has read it (but the one being produced)',
  rule: protocolRule('complete'),
  requirement: 'SHOULD',
  run: async (target) => {
    const { subscription } = target;
    if (subscription === undefined) return needs('subscription', NEEDS);
    return onAcknowledged(target, async (socket) => {
      socket.send({ id: 'sub-2', type: 'subscribe', payload: { query: subscription } });
      const events = await twoEvents(socket, 'sub-2');
      if ('instead' in events) {
        if (events.instead === null) return fail(socket, 'The subscription given delivered fewer than two events within the timeout: nothing to stop.');
        return endedOnItsOwn(events.instead, 'before two events');
      }
      socket.send({ id: 'sub-2', type: 'complete' });
      // Events sent before the server read the complete may still be on their way: the pong marks
      // the moment it had read it, and only what comes after the pong is a violation.
      const inFlight = await socket.settle();
      if (inFlight === null) return fail(socket, `Expected a pong to the ping sent after the client's complete; ${describeClose(await socket.closed(0))} and no pong came.`);
      const ended = inFlight.find((message) => isMessage(message, 'complete', 'sub-2'));
      if (ended !== undefined) return endedOnItsOwn(ended, 'while the client completed it');
      // A server that reads messages concurrently may answer the ping while the source is still
      // producing the event it was asked for before the complete (graphql-ws does): one such event
      // is tolerated. A server that ignores the complete goes on at the subscription's pace.
      const quietMs = Math.min(Math.max(3 * events.gapMs, 200), target.timeoutMs ?? DEFAULT_TIMEOUT_MS);
      const later = (await quietPeriod(socket, 'sub-2', quietMs)).filter((message) => isMessage(message, 'next'));
      if (later.length <= 1) return PASS;
      return fail(socket, `Expected at most the one event already being produced for "sub-2" once the server had read the client's complete; ${later.length} next messages came within ${quietMs} ms.`, 'at most one next for sub-2');
    });
  },
};

export const subscriptionChecks: Array<Check<WsTargetOptions>> = [duplicateId, clientCompleteStops];
