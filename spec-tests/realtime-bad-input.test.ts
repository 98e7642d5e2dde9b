/**
 * Bad input on the WebSocket transport: frames that are not JSON, binary frames, frames larger
 * than maxPayloadBytes, frames that break RFC 6455, unknown message types, ids that are not
 * strings, subscribe storms, sockets dropped mid-subscription, half-open peers that never
 * answer a ping, peers that stop reading, and failures inside the server's own hooks. Each gets
 * its close code or error message, the process never crashes, and no subscription outlives its
 * socket: after each case the live subscriptions are counted at their source (the pub/sub's
 * subscriberCount) and the open sockets (server.websocket.size), and both must be 0.
 *
 * The last law is a property: any sequence of valid and invalid client messages on one socket
 * ends in what the protocol prescribes (a model of it predicts every message and the close code
 * and reason), and leaves nothing behind once the socket has closed. Runs: WS_RUNS (default
 * 200); to replay a failure, set WS_SEED (and WS_PATH) to the `seed` (and `path`) fast-check
 * printed.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { HandmadeSocket, Opcode, RawClient, rawClientForTest, serveForTest, startRealtimeServer, within } from './support/realtime.ts';
import type { Closed, RealtimeServer, ServerMessage } from './support/realtime.ts';

const RUNS = Number(process.env.WS_RUNS ?? 200);
const SEED = process.env.WS_SEED === undefined ? undefined : Number(process.env.WS_SEED);
const PATH = process.env.WS_PATH;


async function handmade(server: RealtimeServer): Promise<HandmadeSocket> {
  const socket = await HandmadeSocket.open(server.port);
  onTestFinished(() => socket.destroy());
  return socket;
}

function eventually(assertion: () => void, timeout = 1000): Promise<void> {
  return vi.waitFor(assertion, { timeout, interval: 5 });
}

/** Nothing left: no subscription to topic at its source, no socket open. */
async function nothingLeft(server: RealtimeServer, topic: string): Promise<void> {
  await eventually(() => {
    expect(server.subscribers(topic)).toBe(0);
    expect(server.sockets()).toBe(0);
  });
}

function subscribeTicks(id: string, topic: string): object {
  return { id, type: 'subscribe', payload: { query: 'subscription ($topic: String!) { ticks(topic: $topic) }', variables: { topic } } };
}

/** An acknowledged client with one live subscription to topic. */
async function subscribedClient(server: RealtimeServer, topic: string): Promise<RawClient> {
  const client = await rawClientForTest(server);
  await client.init();
  client.send(subscribeTicks('live', topic));
  await eventually(() => expect(server.subscribers(topic)).toBeGreaterThan(0));
  return client;
}

/** The close code and reason of a close frame's payload. */
function closeFrame(payload: Buffer): Closed {
  return { code: payload.readUInt16BE(0), reason: payload.subarray(2).toString('utf8') };
}

/**
 * Errors thrown out of the server's event handlers (a crash, were nobody listening), collected
 * for the duration of the test instead of being reported by the runner.
 */
function collectUncaught(): unknown[] {
  const caught: unknown[] = [];
  const previous = process.listeners('uncaughtException');
  const collect = (error: unknown): void => {
    caught.push(error);
  };
  process.removeAllListeners('uncaughtException');
  process.on('uncaughtException', collect);
  onTestFinished(() => {
    process.off('uncaughtException', collect);
    for (const listener of previous) process.on('uncaughtException', listener);
  });
  return caught;
}

function messagesOf(errors: unknown[]): string[] {
  return errors.map((error) => (error instanceof Error ? error.message : String(error)));
}

describe('frames the server cannot take', () => {
  it('closes on text that is not JSON with 4400, and ends the socket\'s subscriptions', async () => {
    const server = await serveForTest();
    const client = await subscribedClient(server, 'garbage');
    client.send('\u0000\u0001 not json {');
    expect(await client.closedWithin()).toEqual({ code: 4400, reason: 'Invalid message received: not JSON' });
    await nothingLeft(server, 'garbage');
  });

  it('closes on a binary frame with 4400 "Binary messages are not supported", and ends the socket\'s subscriptions', async () => {
    const server = await serveForTest();
    const client = await subscribedClient(server, 'binary');
    client.sendBinary(Buffer.from(JSON.stringify({ type: 'ping' })));
    expect(await client.closedWithin()).toEqual({ code: 4400, reason: 'Binary messages are not supported' });
    await nothingLeft(server, 'binary');
  });

  it('closes on a 10 MB text frame with 1009 (larger than the default maxPayloadBytes, 1 MiB), and ends the socket\'s subscriptions', async () => {
    const server = await serveForTest();
    const client = await subscribedClient(server, 'huge');
    client.send(JSON.stringify({ type: 'ping', payload: { padding: 'x'.repeat(10 * 1024 * 1024) } }));
    expect(await client.closedWithin(5000)).toEqual({ code: 1009, reason: '' });
    await nothingLeft(server, 'huge');
  });

  it('takes a frame just under maxPayloadBytes', async () => {
    const server = await serveForTest({ websocket: { maxPayloadBytes: 64 * 1024 } });
    const client = await rawClientForTest(server);
    const padding = 'x'.repeat(64 * 1024 - 100);
    client.send({ type: 'ping', payload: { padding } });
    expect(await client.next()).toEqual({ type: 'pong', payload: { padding } });
  });

  it('answers a burst of large and small messages on several sockets, each socket\'s in the order sent (large ones are handled in their client\'s turn)', async () => {
    const server = await serveForTest();
    const clients = await Promise.all([1, 2, 3].map(() => rawClientForTest(server)));
    const padding = 'x'.repeat(200 * 1024);
    // Each socket: large, small, large, small, sent at once (ws reads them in one go).
    for (const client of clients) {
      for (let n = 1; n <= 4; n++) client.send({ type: 'ping', payload: n % 2 === 1 ? { n, padding } : { n } });
    }
    for (const client of clients) {
      const pongs = [await client.next(), await client.next(), await client.next(), await client.next()];
      expect(pongs.map((pong) => (pong.payload as { n: number }).n)).toEqual([1, 2, 3, 4]);
      expect(pongs[0]).toEqual({ type: 'pong', payload: { n: 1, padding } });
    }
  });

  it('closes with 1009 past a maxPayloadBytes the server sets', async () => {
    const server = await serveForTest({ websocket: { maxPayloadBytes: 1024 } });
    const client = await rawClientForTest(server);
    await client.init();
    client.send({ type: 'ping', payload: { padding: 'x'.repeat(2048) } });
    expect(await client.closedWithin()).toEqual({ code: 1009, reason: '' });
    await nothingLeft(server, 'none');
  });

  it('closes on a text frame that is not UTF-8 with 1007, and ends the socket\'s subscriptions', async () => {
    const server = await serveForTest();
    const socket = await handmade(server);
    socket.sendText({ type: 'connection_init' });
    socket.sendText(subscribeTicks('live', 'latin1'));
    await eventually(() => expect(server.subscribers('latin1')).toBe(1));
    socket.socket.write(Buffer.from([0x81, 0x82, 0, 0, 0, 0, 0xff, 0xfe]));
    await socket.waitFor((frames) => frames.some((frame) => frame.opcode === Opcode.Close));
    const close = socket.frames.find((frame) => frame.opcode === Opcode.Close);
    expect(closeFrame(close!.payload).code).toBe(1007);
    await within(socket.ended, 2000, 'the server to drop the connection');
    await nothingLeft(server, 'latin1');
  });

  it('closes on an unmasked client frame with 1002', async () => {
    const server = await serveForTest();
    const socket = await handmade(server);
    const text = Buffer.from('{"type":"connection_init"}');
    socket.socket.write(Buffer.concat([Buffer.from([0x81, text.length]), text]));
    await socket.waitFor((frames) => frames.some((frame) => frame.opcode === Opcode.Close));
    const close = socket.frames.find((frame) => frame.opcode === Opcode.Close);
    expect(closeFrame(close!.payload).code).toBe(1002);
    expect(socket.messages()).toEqual([]);
    await within(socket.ended, 2000, 'the server to drop the connection');
    await nothingLeft(server, 'none');
  });

  it('ignores every message that follows a fatal one in the same read: nothing after a 4400 subscribes', async () => {
    const server = await serveForTest();
    const socket = await handmade(server);
    socket.sendText({ type: 'connection_init' });
    socket.sendText('not json');
    socket.sendText(subscribeTicks('late', 'after-close'));
    socket.sendText({ type: 'ping' });
    await socket.waitFor((frames) => frames.some((frame) => frame.opcode === Opcode.Close));
    expect(socket.messages()).toEqual([{ type: 'connection_ack' }]);
    expect(closeFrame(socket.frames.find((frame) => frame.opcode === Opcode.Close)!.payload)).toEqual({
      code: 4400,
      reason: 'Invalid message received: not JSON',
    });
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await nothingLeft(server, 'after-close');
  });
});

describe('messages of the wrong shape', () => {
  it.each<[string, unknown]>([
    ['a number', 1],
    ['null', null],
    ['an object', { nested: 'id' }],
    ['a list', ['a']],
    ['a boolean', true],
    ['an empty string', ''],
  ])('closes on subscribe whose id is %s with 4400, and ends the socket\'s subscriptions', async (_what, id) => {
    const server = await serveForTest();
    const client = await subscribedClient(server, 'bad-id');
    client.send({ id, type: 'subscribe', payload: { query: '{ hello }' } });
    expect(await client.closedWithin()).toEqual({ code: 4400, reason: 'Invalid message received: subscribe needs a non-empty string "id"' });
    await nothingLeft(server, 'bad-id');
  });

  it.each<[string, unknown]>([
    ['a number', 7],
    ['null', null],
    ['an object', {}],
  ])('closes on complete whose id is %s with 4400', async (_what, id) => {
    const server = await serveForTest();
    const client = await subscribedClient(server, 'bad-complete');
    client.send({ id, type: 'complete' });
    expect(await client.closedWithin()).toEqual({ code: 4400, reason: 'Invalid message received: complete needs a non-empty string "id"' });
    await nothingLeft(server, 'bad-complete');
  });

  it.each([
    ['subscribe_all', 'unexpected type "subscribe_all"'],
    ['start', 'unexpected type "start"'],
    ['connection_terminate', 'unexpected type "connection_terminate"'],
    ['', 'unexpected type ""'],
  ])('closes on the unknown type %j with 4400', async (type, reason) => {
    const server = await serveForTest();
    const client = await subscribedClient(server, 'unknown-type');
    client.send({ id: 'x', type, payload: {} });
    expect(await client.closedWithin()).toEqual({ code: 4400, reason: `Invalid message received: ${reason}` });
    await nothingLeft(server, 'unknown-type');
  });

  it('keeps a close reason within 123 bytes whatever the message', async () => {
    const server = await serveForTest();
    const client = await rawClientForTest(server);
    client.send({ type: '😀'.repeat(100) });
    const closed = await client.closedWithin();
    expect(closed.code).toBe(4400);
    expect(Buffer.byteLength(closed.reason)).toBeLessThanOrEqual(123);
    expect(closed.reason).toBe(`Invalid message received: unexpected type "${'😀'.repeat(10)}"`);
  });
});

describe('storms and dropped sockets', () => {
  it('runs exactly maxSubscriptionsPerConnection (default 100) of a storm of 500 subscribes, refuses the other 400 with TOO_MANY_SUBSCRIPTIONS, and ends all 100 when the socket closes', async () => {
    const server = await serveForTest();
    const client = await rawClientForTest(server);
    await client.init();
    for (let index = 0; index < 500; index++) client.send(subscribeTicks(`s${index}`, 'storm'));
    const answers = await client.settle();
    expect(answers).toEqual(
      Array.from({ length: 400 }, (_, index) => ({
        id: `s${index + 100}`,
        type: 'error',
        payload: [{ message: 'This connection already runs 100 operations; complete one before starting another.', extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } }],
      })),
    );
    await eventually(() => expect(server.subscribers('storm')).toBe(100));
    await server.pubsub.publish('storm', 1);
    const events = await Promise.all(Array.from({ length: 100 }, () => client.next()));
    expect(new Set(events.map((event) => event.id))).toEqual(new Set(Array.from({ length: 100 }, (_, index) => `s${index}`)));
    expect(await client.close()).toEqual({ code: 1000, reason: '' });
    await nothingLeft(server, 'storm');
  });

  it('leaves no subscription behind when many subscribed sockets are dropped without a close frame', async () => {
    const server = await serveForTest();
    const clients = await Promise.all(Array.from({ length: 40 }, () => rawClientForTest(server)));
    for (const [index, client] of clients.entries()) {
      await client.init();
      for (const topic of ['dropped-a', 'dropped-b', 'dropped-c']) client.send(subscribeTicks(`${topic}-${index}`, topic));
    }
    await eventually(() => {
      for (const topic of ['dropped-a', 'dropped-b', 'dropped-c']) expect(server.subscribers(topic)).toBe(40);
    });
    for (const client of clients) client.terminate();
    await eventually(() => {
      for (const topic of ['dropped-a', 'dropped-b', 'dropped-c']) expect(server.subscribers(topic)).toBe(0);
      expect(server.sockets()).toBe(0);
    });
    expect(server.pubsub.topicCount()).toBe(0);
  });

  it('leaves no subscription behind when sockets are dropped right after subscribing, before the server has subscribed', async () => {
    const server = await serveForTest();
    for (let round = 0; round < 30; round++) {
      const client = await rawClientForTest(server);
      client.send({ type: 'connection_init' });
      for (let index = 0; index < 5; index++) client.send(subscribeTicks(`r${index}`, 'hasty'));
      client.terminate();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    await nothingLeft(server, 'hasty');
    expect(server.pubsub.topicCount()).toBe(0);
  });

  it('leaves no subscription behind when sockets open and close in a loop while subscribing and completing', async () => {
    const server = await serveForTest();
    await Promise.all(
      Array.from({ length: 20 }, async (_, index) => {
        const client = await rawClientForTest(server);
        await client.init();
        client.send(subscribeTicks('a', 'churn'));
        client.send(subscribeTicks('b', 'churn'));
        client.send({ id: 'a', type: 'complete' });
        if (index % 2 === 0) client.terminate();
        else await client.close();
      }),
    );
    await nothingLeft(server, 'churn');
  });
});

describe('peers that stop answering or reading', () => {
  it('terminates a half-open socket that never answers pings within a few keep-alive periods, and ends its subscriptions', async () => {
    const server = await serveForTest({ websocket: { keepAliveMs: 100 } });
    const socket = await handmade(server);
    socket.sendText({ type: 'connection_init' });
    socket.sendText(subscribeTicks('live', 'half-open'));
    await eventually(() => expect(server.subscribers('half-open')).toBe(1));
    const subscribed = Date.now();
    await within(socket.ended, 1000, 'the server to terminate the half-open socket');
    expect(Date.now() - subscribed).toBeLessThan(600);
    expect(socket.pings()).toBeGreaterThanOrEqual(1);
    expect(socket.frames.some((frame) => frame.opcode === Opcode.Close)).toBe(false);
    await nothingLeft(server, 'half-open');
  });

  it('keeps a socket that answers pings open across many keep-alive periods', async () => {
    const server = await serveForTest({ websocket: { keepAliveMs: 50 } });
    const client = await subscribedClient(server, 'alive');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(server.sockets()).toBe(1);
    expect(server.subscribers('alive')).toBe(1);
    await server.pubsub.publish('alive', 1);
    expect(await client.next()).toEqual({ id: 'live', type: 'next', payload: { data: { ticks: 1 } } });
  });

  it('terminates a socket that stops reading once maxBufferedBytes are waiting to be sent, and ends its subscriptions', async () => {
    const server = await serveForTest({ websocket: { maxBufferedBytes: 64 * 1024 } });
    const socket = await handmade(server);
    socket.sendText({ type: 'connection_init' });
    socket.sendText(subscribeTicks('live', 'slow-reader'));
    await eventually(() => expect(server.subscribers('slow-reader')).toBe(1));
    socket.stopReading();
    // Queries whose results are 100 kB each, until the kernel's buffers are full and ws's fill up.
    const name = 'n'.repeat(100_000);
    let sent = 0;
    const flood = setInterval(() => {
      for (let index = 0; index < 20; index++) {
        sent += 1;
        socket.sendText({ id: `q${sent}`, type: 'subscribe', payload: { query: 'query ($name: String) { hello(name: $name) }', variables: { name } } });
      }
    }, 5);
    try {
      await within(socket.ended, 5000, 'the server to terminate the slow reader');
    } finally {
      clearInterval(flood);
    }
    await nothingLeft(server, 'slow-reader');
  });

  it('on shutdown, ends at once the subscriptions of a peer that never answers the close frame, and resolves within shutdownGraceMs', async () => {
    const server = await serveForTest({ shutdownGraceMs: 100 });
    const socket = await handmade(server);
    socket.sendText({ type: 'connection_init' });
    socket.sendText(subscribeTicks('live', 'deaf'));
    await eventually(() => expect(server.subscribers('deaf')).toBe(1));
    let resolved = false;
    const done = server.server.shutdown().then(() => {
      resolved = true;
    });
    await socket.waitFor((frames) => frames.some((frame) => frame.opcode === Opcode.Close));
    expect(closeFrame(socket.frames.find((frame) => frame.opcode === Opcode.Close)!.payload)).toEqual({ code: 1001, reason: 'The server is shutting down' });
    await eventually(() => expect(server.subscribers('deaf')).toBe(0), 500);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(resolved).toBe(true);
    await done;
  });
});

describe("failures in the server's own hooks", () => {
  it('answers an operation whose context factory throws with an INTERNAL_SERVER_ERROR error message, and does not crash', async () => {
    const caught = collectUncaught();
    const server = await serveForTest({
      context: () => {
        throw new Error('The context factory failed.');
      },
    });
    const client = await rawClientForTest(server);
    await client.init();
    client.send({ id: 'ctx', type: 'subscribe', payload: { query: '{ hello }' } });
    const answer = await client.next(500).catch((error: unknown) => error);
    expect(messagesOf(caught)).toEqual([]);
    expect(answer).toMatchObject({ id: 'ctx', type: 'error', payload: [{ extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
    expect(await client.settle()).toEqual([]);
  });

  it('closes with 4500 "Internal server error" when an authenticator throws, and does not crash', async () => {
    const caught = collectUncaught();
    const server = await serveForTest({
      authenticate: [
        {
          scheme: 'ApiKey',
          authenticate: () => {
            throw new Error('The key store is unreachable.');
          },
        },
      ],
    });
    const client = await rawClientForTest(server);
    client.send({ type: 'connection_init', payload: { 'x-api-key': 'any' } });
    const closed = await client.closedWithin(500).catch((error: unknown) => error);
    expect(messagesOf(caught)).toEqual([]);
    expect(closed).toEqual({ code: 4500, reason: 'Internal server error' });
  });

  it('closes with 4500 "Internal server error" when an authenticator rejects', async () => {
    const server = await serveForTest({
      authenticate: [{ scheme: 'ApiKey', authenticate: () => Promise.reject(new Error('The key store is unreachable.')) }],
    });
    const client = await rawClientForTest(server);
    client.send({ type: 'connection_init', payload: { 'x-api-key': 'any' } });
    expect(await client.closedWithin()).toEqual({ code: 4500, reason: 'Internal server error' });
  });
});

// ---------------------------------------------------------------------------------------------
// The property
// ---------------------------------------------------------------------------------------------

/** What the client sends in one step of a random session. */
type Step =
  | { readonly kind: 'init' }
  | { readonly kind: 'ping'; readonly payload: Record<string, unknown> | null | undefined }
  | { readonly kind: 'pong' }
  | { readonly kind: 'subscribe'; readonly id: string }
  | { readonly kind: 'complete'; readonly id: string }
  | { readonly kind: 'invalid'; readonly text: string; readonly reason: string }
  | { readonly kind: 'binary' };

const MAX_OPERATIONS = 3;
const PROPERTY_TOPIC = 'property';

/** Invalid messages and the 4400 reason each gets. */
const INVALID: ReadonlyArray<readonly [string, string]> = [
  ['{', 'not JSON'],
  ['', 'not JSON'],
  ['42', 'not an object'],
  ['[]', 'not an object'],
  ['{}', '"type" must be a string'],
  ['{"type":null}', '"type" must be a string'],
  ['{"type":"next","id":"a","payload":{}}', 'unexpected type "next"'],
  ['{"type":"connection_ack"}', 'unexpected type "connection_ack"'],
  ['{"type":"stop","id":"a"}', 'unexpected type "stop"'],
  ['{"type":"subscribe","id":1,"payload":{"query":"{ hello }"}}', 'subscribe needs a non-empty string "id"'],
  ['{"type":"subscribe","id":"a"}', 'subscribe payload must be an object'],
  ['{"type":"subscribe","id":"a","payload":{"variables":{}}}', 'subscribe payload needs a string "query"'],
  ['{"type":"complete","id":null}', 'complete needs a non-empty string "id"'],
  ['{"type":"connection_init","payload":"token"}', 'connection_init payload must be an object'],
  ['{"type":"ping","payload":[1]}', 'ping payload must be an object'],
];

const ID = fc.constantFrom('a', 'b', 'c', 'd', 'e');

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Step>({ kind: 'init' }) },
  {
    weight: 2,
    arbitrary: fc
      .option(fc.option(fc.dictionary(fc.constantFrom('n', 'at', 'tag'), fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxKeys: 2 }), { nil: null }), { nil: undefined })
      .map((payload): Step => ({ kind: 'ping', payload })),
  },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: 'pong' }) },
  { weight: 6, arbitrary: ID.map((id): Step => ({ kind: 'subscribe', id })) },
  { weight: 3, arbitrary: fc.oneof(ID, fc.constant('unknown')).map((id): Step => ({ kind: 'complete', id })) },
  { weight: 1, arbitrary: fc.constantFrom(...INVALID).map(([text, reason]): Step => ({ kind: 'invalid', text, reason })) },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: 'binary' }) },
);

/** What the protocol prescribes for a session: every message the server sends, its close (if any), and the operations left running. */
interface Expected {
  readonly messages: ServerMessage[];
  readonly closed: Closed | null;
  readonly active: ReadonlyArray<string>;
}

function model(steps: ReadonlyArray<Step>): Expected {
  const messages: ServerMessage[] = [];
  const active: string[] = [];
  let acknowledged = false;
  for (const current of steps) {
    const close = (code: number, reason: string): Expected => ({ messages, closed: { code, reason }, active: [] });
    switch (current.kind) {
      case 'init':
        if (acknowledged) return close(4429, 'Too many initialisation requests');
        acknowledged = true;
        messages.push({ type: 'connection_ack' });
        break;
      case 'ping':
        messages.push(current.payload == null ? { type: 'pong' } : { type: 'pong', payload: current.payload });
        break;
      case 'pong':
        break;
      case 'subscribe':
        if (!acknowledged) return close(4401, 'Unauthorized');
        if (active.includes(current.id)) return close(4409, `Subscriber for ${current.id} already exists`);
        if (active.length >= MAX_OPERATIONS) {
          messages.push({
            id: current.id,
            type: 'error',
            payload: [
              { message: `This connection already runs ${MAX_OPERATIONS} operations; complete one before starting another.`, extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } },
            ],
          });
        } else {
          active.push(current.id);
        }
        break;
      case 'complete': {
        const index = active.indexOf(current.id);
        if (index !== -1) active.splice(index, 1);
        break;
      }
      case 'invalid':
        return close(4400, `Invalid message received: ${current.reason}`);
      case 'binary':
        return close(4400, 'Binary messages are not supported');
    }
  }
  return { messages, closed: null, active };
}

function send(client: RawClient, current: Step): void {
  switch (current.kind) {
    case 'init':
      client.send({ type: 'connection_init' });
      return;
    case 'ping':
      client.send(current.payload === undefined ? { type: 'ping' } : { type: 'ping', payload: current.payload });
      return;
    case 'pong':
      client.send({ type: 'pong' });
      return;
    case 'subscribe':
      client.send(subscribeTicks(current.id, PROPERTY_TOPIC));
      return;
    case 'complete':
      client.send({ id: current.id, type: 'complete' });
      return;
    case 'invalid':
      client.send(current.text);
      return;
    case 'binary':
      client.sendBinary(Buffer.from('{"type":"ping"}'));
      return;
  }
}

describe('any sequence of client messages', () => {
  let server: RealtimeServer;
  beforeAll(async () => {
    server = await startRealtimeServer({ websocket: { maxSubscriptionsPerConnection: MAX_OPERATIONS } });
  });
  afterAll(async () => {
    await server.close();
  });

  /** One session: sends every step at once, checks the server's answers against the model, and that nothing is left once the socket closed. */
  async function session(steps: ReadonlyArray<Step>): Promise<void> {
    const expected = model(steps);
    const client = await RawClient.open(server.wsUrl);
    try {
      for (const current of steps) send(client, current);
      if (expected.closed !== null) {
        expect(await client.closedWithin()).toEqual(expected.closed);
        expect(client.received).toEqual(expected.messages);
      } else {
        expect(await client.settle()).toEqual(expected.messages);
        // The operations still running are live at the source, and get the next event; nothing else does.
        await eventually(() => expect(server.subscribers(PROPERTY_TOPIC)).toBe(expected.active.length));
        if (expected.active.length > 0) {
          await server.pubsub.publish(PROPERTY_TOPIC, 1);
          const events = await Promise.all(expected.active.map(() => client.next()));
          expect(events.map((event) => event.id).sort()).toEqual([...expected.active].sort());
          expect(events.every((event) => event.type === 'next' && JSON.stringify(event.payload) === '{"data":{"ticks":1}}')).toBe(true);
        }
        expect(await client.settle()).toEqual([]);
        await client.close();
      }
    } finally {
      client.terminate();
    }
    await eventually(() => {
      expect(server.subscribers(PROPERTY_TOPIC)).toBe(0);
      expect(server.sockets()).toBe(0);
    });
  }

  it('ends in what the protocol prescribes (every message, or a 44xx close with its reason), never crashes, and leaves no subscription once the socket closed', async () => {
    const caught = collectUncaught();
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), (steps) => session(steps)),
      {
        numRuns: RUNS,
        examples: [
          [[{ kind: 'init' }, { kind: 'subscribe', id: 'a' }, { kind: 'subscribe', id: 'a' }]],
          [[{ kind: 'init' }, { kind: 'subscribe', id: 'a' }, { kind: 'complete', id: 'a' }, { kind: 'subscribe', id: 'a' }]],
          [[{ kind: 'subscribe', id: 'a' }]],
          [[{ kind: 'init' }, { kind: 'init' }]],
          [[{ kind: 'init' }, { kind: 'subscribe', id: 'a' }, { kind: 'binary' }, { kind: 'subscribe', id: 'b' }]],
        ],
        ...(SEED === undefined ? {} : { seed: SEED }),
        ...(PATH === undefined ? {} : { path: PATH }),
      },
    );
    expect(messagesOf(caught)).toEqual([]);
    const client = await RawClient.open(server.wsUrl);
    await client.init();
    await client.close();
  });
});
