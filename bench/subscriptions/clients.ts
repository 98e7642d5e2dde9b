/**
 * The load of the subscription benchmark: one process holding every subscriber, each a raw
 * `ws` socket speaking graphql-transport-ws itself (connection_init, connection_ack, one
 * subscribe). graphql-ws's own client would do the same with timers, promises and sinks per
 * socket; this side must stay cheap so that it is not what is measured.
 *
 * Every message is checked. After the ack, a socket may receive only `next` messages for its
 * subscription (id "1"), whose payload is exactly `{ data: { ticked: { id, at, label } } }` for
 * the tick expected next on that socket: warm-up ticks in increasing order (a socket that
 * became live late misses the first ones), then every timed event in order, none missing, none
 * repeated. All deliveries of one event must carry the same `at`, which the runner compares
 * with the one the server stamped. A message that is checked in full is kept as the event's
 * known-good text, and later deliveries byte-for-byte equal to it are accepted without parsing:
 * an exact check at the price of a string comparison. The first mismatch, error, `complete`,
 * refused upgrade or closed socket fails the run with a message saying which socket and what.
 *
 * Driven by the runner like the servers: JSON lines on stdin, each answered with one JSON line
 * on stdout carrying the same `id` (`error` instead when the run has failed); the process exits
 * when stdin closes, and the kernel closes the sockets.
 *   {"cmd":"open","url":…,"count":N,"concurrency":C}   N sockets, at most C handshakes at once;
 *                                                       answers once every one is acked and has subscribed
 *   {"cmd":"warm-up","sequence":j,"expected":s,"timeoutMs":t}
 *                                  answers how many sockets have received warm-up j, once s have (or after t ms)
 *   {"cmd":"time","events":K}      the timed events begin; warm-up ticks are refused from now on
 *   {"cmd":"event","sequence":m,"timeoutMs":t}
 *                                  answers once every socket has received event m, with its `at`
 *   {"cmd":"results"}              latency percentiles and the times of the first publish and the last delivery
 *   {"cmd":"cpu"}                  this process's CPU time so far ({ user, system }, µs)
 */
import { isDeepStrictEqual } from 'node:util';
import { createInterface } from 'node:readline';
import { WebSocket } from 'ws';
import type { RawData } from 'ws';
import { SUBPROTOCOL, SUBSCRIPTION_QUERY, SUBSCRIPTION_VARIABLES, monotonicMs, tickFor } from './servers/ours.ts';
import type { TickKind } from './servers/ours.ts';

export type ClientCommand =
  | { id: number; cmd: 'open'; url: string; count: number; concurrency: number }
  | { id: number; cmd: 'warm-up'; sequence: number; expected: number; timeoutMs: number }
  | { id: number; cmd: 'time'; events: number }
  | { id: number; cmd: 'event'; sequence: number; timeoutMs: number }
  | { id: number; cmd: 'results' }
  | { id: number; cmd: 'cpu' };

export interface OpenReply {
  /** From the first socket started to the last one subscribed. */
  ms: number;
}

export interface WarmUpReply {
  received: number;
}

export interface EventReply {
  /** The `at` every delivery of the event carried. */
  at: number;
}

export interface ResultsReply {
  deliveries: number;
  /** The quickest delivery: how long the first subscriber to get an event waited. */
  minMs: number;
  p50Ms: number;
  p99Ms: number;
  /** `at` of the first timed event: when it was published. */
  firstPublishedAt: number;
  /** When the last delivery of the last timed event arrived (the same monotonic clock). */
  lastDeliveredAt: number;
  /** For each timed event, from its publication to its last delivery (ms). */
  spansMs: number[];
}

/** The one subscription id every socket uses: so every socket's message for an event is the same text. */
const OPERATION_ID = '1';
const CONNECTION_INIT = JSON.stringify({ type: 'connection_init' });
const SUBSCRIBE = JSON.stringify({
  id: OPERATION_ID,
  type: 'subscribe',
  payload: { query: SUBSCRIPTION_QUERY, variables: SUBSCRIPTION_VARIABLES },
});

const SocketState = { Connecting: 0, AwaitingAck: 1, Subscribed: 2 } as const;
type SocketState = (typeof SocketState)[keyof typeof SocketState];

let sockets: WebSocket[] = [];
let states: SocketState[] = [];
/** Per socket: the last warm-up tick received (0: none yet). */
let lastWarmUp = new Int32Array(0);
/** Per socket: how many timed events it has received (the next one expected is this + 1). */
let eventsReceived = new Int32Array(0);
let subscribed = 0;
let expectedSockets = 0;

/** Per warm-up tick: how many sockets received it, and the `at` they all carried. */
const warmUpCounts = new Map<number, number>();
const warmUpAt = new Map<number, number>();

let phase: 'warm-up' | 'timed' = 'warm-up';
let timedEvents = 0;
/** Index m (1-based): how many sockets received event m, its `at`, its known-good text, when its last delivery came. */
let deliveredCounts = new Int32Array(0);
let eventAt = new Float64Array(0);
let verifiedTexts: Array<string | undefined> = [];
let lastDeliveryAt = new Float64Array(0);
/** Publish-to-receive of every timed delivery (ms). */
let latencies = new Float64Array(0);
let latencyCount = 0;

/** The first thing that went wrong; every answer from then on is this error. */
let failure: string | null = null;
let shuttingDown = false;

/** Waiting commands, woken whenever a count they wait for may have changed (or the run failed). */
const waiters = new Set<() => boolean>();

function fail(message: string): void {
  if (failure !== null) return;
  failure = message;
  for (const waiter of [...waiters]) waiter();
}

function reply(id: number, body: object): void {
  process.stdout.write(`${JSON.stringify(failure === null ? { id, ...body } : { id, error: failure })}\n`);
}

function replyError(id: number, message: string): void {
  process.stdout.write(`${JSON.stringify({ id, error: failure ?? message })}\n`);
}

/** Answers `answer()` once `ready()` holds, or the error once the run fails, or `onTimeout()` after timeoutMs. */
function waitFor(id: number, ready: () => boolean, answer: () => object, timeoutMs: number, onTimeout: () => object | string): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = (): boolean => {
    if (failure === null && !ready()) return false;
    waiters.delete(check);
    clearTimeout(timer);
    reply(id, failure === null ? answer() : {});
    return true;
  };
  if (check()) return;
  waiters.add(check);
  timer = setTimeout(() => {
    waiters.delete(check);
    const outcome = onTimeout();
    if (typeof outcome === 'string') replyError(id, outcome);
    else reply(id, outcome);
  }, timeoutMs);
}

function wake(): void {
  for (const waiter of [...waiters]) waiter();
}

const excerpt = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);

function open(id: number, url: string, count: number, concurrency: number): void {
  expectedSockets = count;
  sockets = new Array<WebSocket>(count);
  states = new Array<SocketState>(count).fill(SocketState.Connecting);
  lastWarmUp = new Int32Array(count);
  eventsReceived = new Int32Array(count);
  const startedAt = monotonicMs();
  let started = 0;
  const startNext = () => {
    while (started < count && started - subscribed < concurrency && failure === null) connect(url, started++, startNext);
  };
  startNext();
  waitFor(
    id,
    () => subscribed === count,
    () => ({ ms: monotonicMs() - startedAt }) satisfies OpenReply,
    120_000,
    () => `Only ${subscribed} of ${count} sockets were acknowledged and subscribed within 120 s (${started} started).`,
  );
}

function connect(url: string, index: number, onSubscribed: () => void): void {
  // Compression off, as both servers have it; UTF-8 validation skipped: every message is checked anyway.
  const ws = new WebSocket(url, SUBPROTOCOL, { perMessageDeflate: false, skipUTF8Validation: true });
  sockets[index] = ws;
  ws.on('open', () => {
    if (ws.protocol !== SUBPROTOCOL) return fail(`Socket ${index}: the server chose the subprotocol "${ws.protocol}", not ${SUBPROTOCOL}.`);
    states[index] = SocketState.AwaitingAck;
    ws.send(CONNECTION_INIT);
  });
  ws.on('message', (data: RawData, isBinary: boolean) => {
    const receivedAt = monotonicMs();
    if (isBinary) return fail(`Socket ${index}: received a binary message.`);
    const text = (data as Buffer).toString('utf8');
    if (states[index] === SocketState.Subscribed) {
      if (phase === 'timed') timedMessage(index, text, receivedAt);
      else warmUpMessage(index, text);
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return fail(`Socket ${index}: expected connection_ack, got text that is not JSON: ${excerpt(text)}`);
    }
    const { type, id, payload } = (message ?? {}) as Record<string, unknown>;
    if (type !== 'connection_ack' || id !== undefined || (payload !== undefined && payload !== null && typeof payload !== 'object')) {
      return fail(`Socket ${index}: expected connection_ack, got ${excerpt(text)}`);
    }
    states[index] = SocketState.Subscribed;
    ws.send(SUBSCRIBE);
    subscribed++;
    onSubscribed();
    if (subscribed === expectedSockets) wake();
  });
  ws.on('unexpected-response', (_request, response) => {
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (body += chunk));
    response.on('end', () => fail(`Socket ${index}: the server refused the upgrade with ${response.statusCode}: ${excerpt(body)}`));
  });
  ws.on('error', (error: Error) => fail(`Socket ${index}: ${error.message}`));
  ws.on('close', (code: number, reason: Buffer) => {
    if (!shuttingDown) fail(`Socket ${index} was closed (${code}${reason.length > 0 ? ` ${reason.toString()}` : ''}).`);
  });
}

/** Checks a `next` message fully; answers its tick's `at`, or what is wrong with it. */
function verifyNext(text: string, kind: TickKind, sequence: number, at: number | undefined): number | string {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return 'not JSON';
  }
  const tickAt = ((message as { payload?: { data?: { ticked?: { at?: unknown } } } } | null)?.payload?.data?.ticked?.at);
  if (typeof tickAt !== 'number' || !Number.isFinite(tickAt)) return 'no number at payload.data.ticked.at';
  if (at !== undefined && tickAt !== at) return `"at" is ${tickAt} where the other deliveries of the event carried ${at}`;
  const expected = { id: OPERATION_ID, type: 'next', payload: { data: { ticked: { ...tickFor(kind, sequence), at: tickAt } } } };
  if (!isDeepStrictEqual(message, expected)) return `expected ${JSON.stringify(expected)}`;
  return tickAt;
}

function warmUpMessage(index: number, text: string): void {
  const match = /"id":"w(\d+)"/.exec(text);
  const sequence = match === null ? NaN : Number(match[1]);
  if (!(sequence > (lastWarmUp[index] as number))) {
    return fail(`Socket ${index}: expected a warm-up tick after w${lastWarmUp[index]}, got ${excerpt(text)}`);
  }
  const verified = verifyNext(text, 'warm-up', sequence, warmUpAt.get(sequence));
  if (typeof verified === 'string') return fail(`Socket ${index}: warm-up tick ${sequence}: ${verified}; got ${excerpt(text)}`);
  warmUpAt.set(sequence, verified);
  lastWarmUp[index] = sequence;
  const count = (warmUpCounts.get(sequence) ?? 0) + 1;
  warmUpCounts.set(sequence, count);
  if (count === expectedSockets) wake();
}

function timedMessage(index: number, text: string, receivedAt: number): void {
  const sequence = (eventsReceived[index] as number) + 1;
  if (sequence > timedEvents) return fail(`Socket ${index}: a message after all ${timedEvents} events: ${excerpt(text)}`);
  let at = eventAt[sequence] as number;
  if (text !== verifiedTexts[sequence]) {
    const verified = verifyNext(text, 'event', sequence, verifiedTexts[sequence] === undefined ? undefined : at);
    if (typeof verified === 'string') return fail(`Socket ${index}: event ${sequence}: ${verified}; got ${excerpt(text)}`);
    at = verified;
    eventAt[sequence] = at;
    verifiedTexts[sequence] ??= text;
  }
  eventsReceived[index] = sequence;
  latencies[latencyCount++] = receivedAt - at;
  const delivered = (deliveredCounts[sequence] as number) + 1;
  deliveredCounts[sequence] = delivered;
  if (delivered === expectedSockets) {
    lastDeliveryAt[sequence] = receivedAt;
    wake();
  }
}

function startTimed(events: number): void {
  phase = 'timed';
  timedEvents = events;
  deliveredCounts = new Int32Array(events + 1);
  eventAt = new Float64Array(events + 1);
  verifiedTexts = new Array<string | undefined>(events + 1);
  lastDeliveryAt = new Float64Array(events + 1);
  latencies = new Float64Array(expectedSockets * events);
  latencyCount = 0;
}

/** The value below which a share p of the sorted values lie (nearest rank). */
function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] as number;
}

function results(): ResultsReply | string {
  const complete = deliveredCounts[timedEvents] === expectedSockets;
  if (!complete || latencyCount !== expectedSockets * timedEvents) {
    return `Only ${deliveredCounts[timedEvents]} of ${expectedSockets} sockets received the last event (${latencyCount} deliveries in all).`;
  }
  const sorted = latencies.slice(0, latencyCount).sort();
  const spansMs: number[] = [];
  for (let m = 1; m <= timedEvents; m++) spansMs.push((lastDeliveryAt[m] as number) - (eventAt[m] as number));
  return {
    deliveries: latencyCount,
    minMs: sorted[0] as number,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    firstPublishedAt: eventAt[1] as number,
    lastDeliveredAt: lastDeliveryAt[timedEvents] as number,
    spansMs,
  };
}

function handle(command: ClientCommand): void {
  if (failure !== null) return replyError(command.id, failure);
  switch (command.cmd) {
    case 'open':
      return open(command.id, command.url, command.count, command.concurrency);
    case 'warm-up': {
      const { sequence, expected } = command;
      const received = () => warmUpCounts.get(sequence) ?? 0;
      return waitFor(command.id, () => received() >= expected, () => ({ received: received() }) satisfies WarmUpReply, command.timeoutMs, () => ({ received: received() }));
    }
    case 'time':
      startTimed(command.events);
      return reply(command.id, {});
    case 'event': {
      const { sequence } = command;
      return waitFor(
        command.id,
        () => deliveredCounts[sequence] === expectedSockets,
        () => ({ at: eventAt[sequence] as number }) satisfies EventReply,
        command.timeoutMs,
        () => `Only ${deliveredCounts[sequence]} of ${expectedSockets} sockets received event ${sequence} within ${command.timeoutMs} ms.`,
      );
    }
    case 'results': {
      const outcome = results();
      return typeof outcome === 'string' ? replyError(command.id, outcome) : reply(command.id, outcome);
    }
    case 'cpu':
      return reply(command.id, process.cpuUsage());
  }
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => handle(JSON.parse(line) as ClientCommand));
lines.on('close', () => {
  shuttingDown = true;
  process.exit(0);
});
