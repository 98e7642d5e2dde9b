/**
 * The checks of messages that carry no operation: Ping and Pong at any time, and the invalid
 * message rule (anything the protocol does not specify closes the socket with 4400).
 */
import type { Check } from '../check.ts';
import { PASS, describeClose, expectClose, fail, isMessage, onAcknowledged, onSocket, protocolRule } from './outcomes.ts';
import type { WsTargetOptions } from './outcomes.ts';

const pong: Check<WsTargetOptions> = {
  id: 'ws.ping.pong',
  title: 'Ping is answered with Pong',
  rule: protocolRule('ping'),
  requirement: 'MUST',
  run: (target) =>
    onAcknowledged(target, async (socket) => {
      socket.send({ type: 'ping' });
      const answer = await socket.next();
      return isMessage(answer, 'pong') ? PASS : fail(socket, 'Expected pong in answer to ping.', { type: 'pong' });
    }),
};

const pongEchoesPayload: Check<WsTargetOptions> = {
  id: 'ws.ping.pong-echoes-payload',
  title: "A Ping's payload comes back in the Pong (the protocol lets Pong carry any payload; graphql-ws echoes it)",
  rule: protocolRule('pong'),
  requirement: 'MAY',
  run: (target) =>
    onAcknowledged(target, async (socket) => {
      const payload = { conformance: 'echo me', n: 1 };
      socket.send({ type: 'ping', payload });
      const answer = await socket.next();
      if (isMessage(answer, 'pong') && JSON.stringify(answer.payload) === JSON.stringify(payload)) return PASS;
      return fail(socket, "Expected pong carrying the ping's payload.", { type: 'pong', payload });
    }),
};

const pingBeforeInit: Check<WsTargetOptions> = {
  id: 'ws.ping.before-init',
  title: 'Ping is answered with Pong at any time, before ConnectionInit too',
  rule: protocolRule('ping'),
  requirement: 'MUST',
  run: (target) =>
    onSocket(target, async (socket) => {
      socket.send({ type: 'ping' });
      const answer = await socket.next();
      return isMessage(answer, 'pong') ? PASS : fail(socket, 'Expected pong in answer to a ping sent before connection_init.', { type: 'pong' });
    }),
};

const unsolicitedPong: Check<WsTargetOptions> = {
  id: 'ws.pong.unsolicited-ignored',
  title: 'An unsolicited Pong (a heartbeat) is accepted: the socket stays open',
  rule: protocolRule('pong'),
  requirement: 'MUST',
  run: (target) =>
    onAcknowledged(target, async (socket) => {
      socket.send({ type: 'pong', payload: { heartbeat: true } });
      const before = await socket.settle();
      if (before === null) return fail(socket, `Expected the socket to stay open after an unsolicited pong, and a pong to the ping sent next; ${describeClose(await socket.closed(0))} and no pong came.`);
      return before.length === 0 ? PASS : fail(socket, 'Expected no answer to an unsolicited pong.');
    }),
};

/** A check that an invalid message, sent once the connection is acknowledged, closes the socket with 4400. */
function invalidMessage(rule: string, title: string, message: object | string): Check<WsTargetOptions> {
  return {
    id: `ws.invalid.${rule}-4400`,
    title,
    rule: protocolRule('invalid-message'),
    requirement: 'MUST',
    run: (target) =>
      onAcknowledged(target, async (socket) => {
        socket.send(message);
        return expectClose(socket, 4400, `on ${typeof message === 'string' ? 'a message that is not JSON' : JSON.stringify(message)}`);
      }),
  };
}

export const messageChecks: Array<Check<WsTargetOptions>> = [
  pong,
  pongEchoesPayload,
  pingBeforeInit,
  unsolicitedPong,
  invalidMessage('not-json', 'A message that is not JSON closes the socket with 4400', '{"type": "subscribe", "id": '),
  invalidMessage('unknown-type', 'A message of a type the protocol does not specify closes the socket with 4400', { type: 'glassbox_unknown' }),
  invalidMessage('subscribe-without-id', 'Subscribe without an id closes the socket with 4400', { type: 'subscribe', payload: { query: '{ __typename }' } }),
];
