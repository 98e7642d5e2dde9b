/**
 * The checks of the connection itself: the subprotocol negotiated at the upgrade, and the
 * ConnectionInit rules (acknowledged, timed out with 4408, duplicated with 4429, refused with 4403,
 * skipped with 4401).
 */
import type { Check } from '../check.ts';
import { tryUpgrade } from './handshake.ts';
import { DEFAULT_TIMEOUT_MS, PASS, acknowledged, expectClose, fail, onSocket, protocolRule, socketTarget } from './outcomes.ts';
import type { WsTargetOptions } from './outcomes.ts';
import { ProtocolSocket, SUBPROTOCOL } from './socket.ts';

/** A subprotocol no server speaks. */
const UNSUPPORTED_SUBPROTOCOL = 'graphql-conformance-unsupported';

/** What ProtocolSocket.open reports when the upgrade fails. */
async function opened(target: WsTargetOptions): Promise<ProtocolSocket | Error> {
  try {
    return await ProtocolSocket.open(socketTarget(target));
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

const selectsSubprotocol: Check<WsTargetOptions> = {
  id: 'ws.handshake.selects-subprotocol',
  title: 'An upgrade offering graphql-transport-ws is accepted, with graphql-transport-ws selected',
  rule: protocolRule('communication'),
  requirement: 'MUST',
  async run(target) {
    const socket = await opened(target);
    if (socket instanceof Error) {
      return { status: 'fail', evidence: { why: `The upgrade failed: ${socket.message}`, sent: { url: target.url, subprotocols: [SUBPROTOCOL] }, expected: { status: 101, subprotocol: SUBPROTOCOL } } };
    }
    socket.drop();
    return socket.protocol === SUBPROTOCOL
      ? PASS
      : { status: 'fail', evidence: { why: `The server selected "${socket.protocol}".`, sent: { subprotocols: [SUBPROTOCOL] }, received: { subprotocol: socket.protocol }, expected: SUBPROTOCOL } };
  },
};

const unsupportedSubprotocol: Check<WsTargetOptions> = {
  id: 'ws.handshake.unsupported-subprotocol',
  title: 'An upgrade offering only another subprotocol is refused, or closed with 4406 at once',
  rule: protocolRule('communication'),
  requirement: 'SHOULD',
  async run(target) {
    const timeoutMs = target.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const outcome = await tryUpgrade({ url: target.url, protocol: UNSUPPORTED_SUBPROTOCOL, timeoutMs, ...(target.headers === undefined ? {} : { headers: target.headers }) });
    const sent = { url: target.url, subprotocols: [UNSUPPORTED_SUBPROTOCOL] };
    const expected = 'an HTTP 4xx refusal, or 101 then close code 4406';
    switch (outcome.kind) {
      case 'refused':
        if (outcome.status >= 400 && outcome.status < 500) return { status: 'pass', evidence: { why: `Refused with HTTP ${outcome.status}.` } };
        return { status: 'fail', evidence: { why: `The upgrade was answered with HTTP ${outcome.status}.`, sent, received: outcome, expected } };
      case 'switched':
        // A server may select the offered subprotocol (the `ws` package's default) if it closes with 4406 at once.
        if (outcome.closed?.code === 4406) return { status: 'pass', evidence: { why: `Switched protocols (subprotocol "${outcome.selected}"), then closed with 4406.` } };
        return { status: 'fail', evidence: { why: `The server switched protocols (subprotocol "${outcome.selected}") and ${outcome.closed === null ? 'kept the socket open' : `closed with ${outcome.closed.code}`}.`, sent, received: outcome, expected } };
      case 'unreachable':
        return { status: 'fail', evidence: { why: `The upgrade got no answer: ${outcome.message}`, sent, expected } };
    }
  },
};

const ack: Check<WsTargetOptions> = {
  id: 'ws.init.ack',
  title: 'ConnectionInit is answered with ConnectionAck',
  rule: protocolRule('connectionack'),
  requirement: 'MUST',
  run: (target) =>
    onSocket(target, async (socket) => {
      socket.send(target.connectionParams === undefined ? { type: 'connection_init' } : { type: 'connection_init', payload: target.connectionParams });
      const answer = await socket.next();
      if (typeof answer === 'object' && answer !== null && answer.type === 'connection_ack') {
        const { payload } = answer;
        if (payload === undefined || payload === null || (typeof payload === 'object' && !Array.isArray(payload))) return PASS;
        return fail(socket, 'connection_ack carried a payload that is not an object.', { type: 'connection_ack', payload: 'an object, null or absent' });
      }
      return fail(socket, 'Expected connection_ack.', { type: 'connection_ack' });
    }),
};

const initTimeout: Check<WsTargetOptions> = {
  id: 'ws.init.timeout-4408',
  title: 'A socket without ConnectionInit is closed with 4408 once the server stops waiting',
  rule: protocolRule('connectioninit'),
  requirement: 'MUST',
  run: (target) =>
    onSocket(target, async (socket) => {
      const closed = await socket.closed();
      if (closed?.code === 4408) return PASS;
      const waited = target.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const why =
        closed === null
          ? `Sent nothing for ${waited} ms and the socket stayed open: the server never closed it with 4408 (if its connectionInitWaitTimeout is longer than ${waited} ms, raise timeoutMs).`
          : `Sent nothing and the server closed the socket with ${closed.code} "${closed.reason}" instead of 4408.`;
      return fail(socket, why, { closeCode: 4408 });
    }),
};

const duplicateInit: Check<WsTargetOptions> = {
  id: 'ws.init.duplicate-4429',
  title: 'A second ConnectionInit closes the socket with 4429',
  rule: protocolRule('connectioninit'),
  requirement: 'MUST',
  run: (target) =>
    onSocket(target, async (socket) => {
      const notAcknowledged = await acknowledged(socket, target);
      if (notAcknowledged !== null) return notAcknowledged;
      socket.send(target.connectionParams === undefined ? { type: 'connection_init' } : { type: 'connection_init', payload: target.connectionParams });
      return expectClose(socket, 4429, 'on a second connection_init');
    }),
};

/** The same payload with every string in it replaced: credentials the server cannot accept. */
function spoiled(value: unknown): unknown {
  if (typeof value === 'string') return 'conformance-invalid-credential';
  if (Array.isArray(value)) return value.map(spoiled);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, spoiled(each)]));
  return value;
}

const forbidden: Check<WsTargetOptions> = {
  id: 'ws.init.forbidden-4403',
  title: 'A ConnectionInit whose credentials are refused closes the socket with 4403',
  rule: protocolRule('connectioninit'),
  requirement: 'SHOULD',
  run: async (target) => {
    const { connectionParams } = target;
    if (connectionParams === undefined) {
      return { status: 'skip', evidence: { why: 'Applies to a server that authenticates connection_init: give the credentials it accepts with the `connectionParams` option (--connection-params on the command line); the check sends them spoiled.' } };
    }
    return onSocket(target, async (socket) => {
      socket.send({ type: 'connection_init', payload: spoiled(connectionParams) });
      return expectClose(socket, 4403, 'on a connection_init whose credentials were replaced by invalid ones');
    });
  },
};

const subscribeBeforeAck: Check<WsTargetOptions> = {
  id: 'ws.subscribe.before-ack-4401',
  title: 'Subscribe before the connection is acknowledged closes the socket with 4401',
  rule: protocolRule('subscribe'),
  requirement: 'MUST',
  run: (target) =>
    onSocket(target, async (socket) => {
      socket.send({ id: 'before-ack', type: 'subscribe', payload: { query: '{ __typename }' } });
      return expectClose(socket, 4401, 'on a subscribe sent before connection_init');
    }),
};

export const connectionChecks: Array<Check<WsTargetOptions>> = [selectsSubprotocol, unsupportedSubprotocol, ack, initTimeout, duplicateInit, forbidden, subscribeBeforeAck];
