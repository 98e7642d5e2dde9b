/**
 * What every graphql-transport-ws check shares: the target's options with their defaults, the link
 * to the protocol's section, and the outcomes (a failure carries the socket's transcript, so the
 * report shows what was sent and what came back).
 */
import type { CheckOutcome } from '../check.ts';
import { SUBPROTOCOL, SocketOpenError, withSocket } from './socket.ts';
import type { Closed, ProtocolSocket, Received, SocketTarget } from './socket.ts';

/** The target of the WebSocket checks: a server speaking graphql-transport-ws. */
export interface WsTargetOptions {
  /** `ws://` or `wss://` URL of the GraphQL over WebSocket endpoint. */
  url: string;
  /**
   * A subscription that emits events on its own, at least two, spaced in time (a ticking counter);
   * the checks that need an active subscription are skipped without it.
   */
  subscription?: string;
  /** A query that succeeds (`{ __typename }` is valid in every schema); checks that need one are skipped without it. */
  query?: string;
  /** The `payload` of every `connection_init` the checks send (credentials, when the server asks for them). */
  connectionParams?: Record<string, unknown>;
  /** Headers of every upgrade request. */
  headers?: Record<string, string>;
  /**
   * How long one wait lasts (an answer, a close); default 5000 ms. The ConnectionInit timeout
   * check waits this long for the server's 4408, so it must exceed the server's
   * `connectionInitWaitTimeout` (3000 ms in graphql-ws).
   */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 5000;

/** The socket target of a check's target. */
export function socketTarget(target: WsTargetOptions): SocketTarget {
  return { url: target.url, timeoutMs: target.timeoutMs ?? DEFAULT_TIMEOUT_MS, ...(target.headers === undefined ? {} : { headers: target.headers }) };
}

/** The link to a section of graphql-ws's PROTOCOL.md. */
export function protocolRule(anchor: string): string {
  return `https://github.com/enisdenjo/graphql-ws/blob/master/PROTOCOL.md#${anchor}`;
}

export const PASS: CheckOutcome = { status: 'pass' };

/** A failure, with what the socket sent and received. */
export function fail(socket: ProtocolSocket, why: string, expected?: unknown): CheckOutcome {
  const { sent, received } = socket.transcript();
  return { status: 'fail', evidence: { why, sent, received, ...(expected === undefined ? {} : { expected }) } };
}

/** A skip for a check that needs an operation the options did not give. */
export function needs(option: 'query' | 'subscription', what: string): CheckOutcome {
  const flag = `--${option}`;
  return { status: 'skip', evidence: { why: `Needs ${what}: give one with the \`${option}\` option (${flag} on the command line).` } };
}

/** True if message is a protocol message of this type (and this id, when given). */
export function isMessage(message: Received | null, type: string, id?: string): message is Exclude<Received, string> {
  return typeof message === 'object' && message !== null && message.type === type && (id === undefined || message.id === id);
}

/** One line for a close: `4400 "reason"`, or that the socket is still open. */
export function describeClose(closed: Closed | null): string {
  return closed === null ? 'the socket stayed open' : `it closed with ${closed.code} "${closed.reason}"`;
}

/**
 * The outcome of a rule "the server closes the socket with `code`": a pass if it closes with that
 * code within the timeout, else a failure saying what happened instead.
 */
export async function expectClose(socket: ProtocolSocket, code: number, after: string): Promise<CheckOutcome> {
  const closed = await socket.closed();
  if (closed?.code === code) return PASS;
  return fail(socket, `Expected the server to close the socket with ${code} ${after}; ${describeClose(closed)}.`, { closeCode: code });
}

/** The connection_init that opens every check that needs an acknowledged connection. */
export async function acknowledged(socket: ProtocolSocket, target: WsTargetOptions): Promise<CheckOutcome | null> {
  if (await socket.init(target.connectionParams)) return null;
  return fail(socket, 'Could not start: connection_init was not answered with connection_ack (give credentials with the `connectionParams` option, --connection-params on the command line, if the server asks for them).');
}

/**
 * Runs `body` on a socket of its own, dropped afterwards; a socket that cannot be opened (the
 * upgrade refused, no server) is the check's failure, saying why.
 */
export async function onSocket(target: WsTargetOptions, body: (socket: ProtocolSocket) => Promise<CheckOutcome>): Promise<CheckOutcome> {
  try {
    return await withSocket(socketTarget(target), body);
  } catch (error) {
    if (!(error instanceof SocketOpenError)) throw error;
    return { status: 'fail', evidence: { why: `Could not open a WebSocket: ${error.message}`, sent: { url: target.url, subprotocols: [SUBPROTOCOL] } } };
  }
}

/** Runs `body` on an acknowledged socket, or fails if the connection is not acknowledged. */
export function onAcknowledged(target: WsTargetOptions, body: (socket: ProtocolSocket) => Promise<CheckOutcome>): Promise<CheckOutcome> {
  return onSocket(target, async (socket) => (await acknowledged(socket, target)) ?? body(socket));
}
