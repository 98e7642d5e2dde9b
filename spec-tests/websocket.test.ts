/**
 * GraphQL over WebSocket, the graphql-transport-ws protocol (graphql-ws's PROTOCOL.md), served by
 * createServer on its own port and path.
 *
 * First the real client, graphql-ws's `createClient` (over the `ws` package): subscriptions,
 * queries and mutations, errors, completing and disposing, authentication. Then each rule of the
 * protocol with a raw `ws` client that sends exactly the message the rule is about, and checks
 * the exact answer: the message, or the close code and reason. The describe blocks are named
 * after the protocol document's message types (ConnectionInit, Ping, Subscribe, Complete,
 * Invalid message) and after what the adapter adds (the upgrade, connection limits, shutdown).
 *
 * Live subscriptions are counted at their source, the pub/sub's subscriberCount: a subscription
 * the protocol has ended must have left its topic.
 */
import type { IncomingMessage } from 'node:http';
import { createClient } from 'graphql-ws';
import type { Client, ClientOptions, FormattedExecutionResult, Message, SubscribePayload } from 'graphql-ws';
import { WebSocket } from 'ws';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { ANONYMOUS, apiKeyAuth, hashApiKey } from '../src/index.ts';
import type { Identity, LogEntry } from '../src/index.ts';
import { FEED_FAILURE, RawClient, SECRET, SUBPROTOCOL, startRealtimeServer, upgradeRefusal, within } from './support/realtime.ts';
import type { RealtimeServer, RealtimeServerOptions } from './support/realtime.ts';

/** A server for this test only, closed when it finishes. */
async function serve(options: RealtimeServerOptions = {}): Promise<RealtimeServer> {
  const server = await startRealtimeServer(options);
  onTestFinished(() => server.close());
  return server;
}

/** A raw client for this test only, dropped when it finishes. */
async function rawClient(server: RealtimeServer, options: Parameters<typeof RawClient.open>[1] = {}): Promise<RawClient> {
  const client = await RawClient.open(server.wsUrl, options);
  onTestFinished(() => client.terminate());
  return client;
}

/** Polls until the assertion holds: for what the server does on its own time. */
function eventually(assertion: () => void, timeout = 1000): Promise<void> {
  return vi.waitFor(assertion, { timeout, interval: 5 });
}

const SUBSCRIBE_TICKS = 'subscription Ticks($topic: String!) { ticks(topic: $topic) }';

// ---------------------------------------------------------------------------------------------
// The graphql-ws client
// ---------------------------------------------------------------------------------------------

/** What one graphql-ws subscription delivered, and how it ended. */
interface Delivery {
  readonly results: FormattedExecutionResult<Record<string, unknown>, unknown>[];
  readonly ended: Promise<{ completed: true } | { error: unknown }>;
  unsubscribe(): void;
}

function deliver(client: Client, payload: SubscribePayload): Delivery {
  const results: FormattedExecutionResult<Record<string, unknown>, unknown>[] = [];
  let unsubscribe: () => void = () => undefined;
  const ended = new Promise<{ completed: true } | { error: unknown }>((resolve) => {
    unsubscribe = client.subscribe(payload, {
      next: (result) => results.push(result),
      error: (error) => resolve({ error }),
      complete: () => resolve({ completed: true }),
    });
  });
  return { results, ended: within(ended, 2000, 'the subscription to end'), unsubscribe };
}

/**
 * The graphql-ws client with `ws` as its WebSocket, no retries, ids `op-1`, `op-2`, ... and
 * every message it receives recorded in `messages`; disposed when the test finishes.
 */
function graphqlWsClient(server: RealtimeServer, options: Partial<ClientOptions> = {}): { client: Client; messages: Message[] } {
  const messages: Message[] = [];
  let ids = 0;
  const client = createClient({
    url: server.wsUrl,
    webSocketImpl: WebSocket,
    retryAttempts: 0,
    generateID: () => `op-${++ids}`,
    onNonLazyError: () => undefined,
    on: { message: (message) => messages.push(message) },
    ...options,
  });
  onTestFinished(() => client.dispose());
  return { client, messages };
}

/** The close code and reason of a close event as graphql-ws hands it to an error callback. */
function closeOf(error: unknown): { code: number; reason: string } {
  const { code, reason } = error as { code: number; reason: string };
  return { code, reason };
}

describe('the graphql-ws client against createServer', () => {
  it('receives every event published after the server subscribed, in publication order', async () => {
    const server = await serve();
    const { client } = graphqlWsClient(server);
    const delivery = deliver(client, { query: SUBSCRIBE_TICKS, variables: { topic: 'numbers' } });
    await eventually(() => expect(server.subscribers('numbers')).toBe(1));
    for (const value of [1, 2, 3]) await server.pubsub.publish('numbers', value);
    await eventually(() => expect(delivery.results).toHaveLength(3));
    expect(delivery.results).toEqual([{ data: { ticks: 1 } }, { data: { ticks: 2 } }, { data: { ticks: 3 } }]);
  });

  it('delivers every event of a source that ends, then completes', async () => {
    const server = await serve();
    const { client, messages } = graphqlWsClient(server);
    const delivery = deliver(client, { query: 'subscription { countdown(from: 3) }' });
    expect(await delivery.ended).toEqual({ completed: true });
    expect(delivery.results).toEqual([{ data: { countdown: 3 } }, { data: { countdown: 2 } }, { data: { countdown: 1 } }]);
    expect(messages.slice(1)).toEqual([
      { id: 'op-1', type: 'next', payload: { data: { countdown: 3 } } },
      { id: 'op-1', type: 'next', payload: { data: { countdown: 2 } } },
      { id: 'op-1', type: 'next', payload: { data: { countdown: 1 } } },
      { id: 'op-1', type: 'complete' },
    ]);
  });

  it('runs a query over the socket: one next with its result, then complete', async () => {
    const server = await serve();
    const { client, messages } = graphqlWsClient(server);
    const delivery = deliver(client, { query: 'query Greet($name: String) { hello(name: $name) }', variables: { name: 'Ada' } });
    expect(await delivery.ended).toEqual({ completed: true });
    expect(delivery.results).toEqual([{ data: { hello: 'Hello, Ada!' } }]);
    expect(messages).toEqual([
      { type: 'connection_ack' },
      { id: 'op-1', type: 'next', payload: { data: { hello: 'Hello, Ada!' } } },
      { id: 'op-1', type: 'complete' },
    ]);
  });

  it('runs a mutation over the socket, and its publication reaches a subscription on the same socket', async () => {
    const server = await serve();
    const { client } = graphqlWsClient(server);
    const ticks = deliver(client, { query: SUBSCRIBE_TICKS, variables: { topic: 'shared' } });
    await eventually(() => expect(server.subscribers('shared')).toBe(1));
    const mutation = deliver(client, { query: 'mutation { publish(topic: "shared", value: 42) }' });
    expect(await mutation.ended).toEqual({ completed: true });
    expect(mutation.results).toEqual([{ data: { publish: 1 } }]);
    await eventually(() => expect(ticks.results).toEqual([{ data: { ticks: 42 } }]));
  });

  it('hands a validation error to the error callback as the exact errors, with nothing delivered', async () => {
    const server = await serve();
    const { client, messages } = graphqlWsClient(server);
    const delivery = deliver(client, { query: '{ nope }' });
    expect(await delivery.ended).toEqual({
      error: [{ message: 'Cannot query field "nope" on type "Query".', locations: [{ line: 1, column: 3 }], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }],
    });
    expect(delivery.results).toEqual([]);
    expect(messages.map((message) => message.type)).toEqual(['connection_ack', 'error']);
  });

  it('hands a limit error to the error callback, with its code, measure and limit', async () => {
    const server = await serve({ limits: { aliases: 2 } });
    const { client } = graphqlWsClient(server);
    const delivery = deliver(client, { query: '{ a: hello b: hello c: hello }' });
    expect(await delivery.ended).toEqual({
      error: [{ message: 'Query uses 3 aliases; the limit is 2.', extensions: { code: 'ALIAS_LIMIT_EXCEEDED', measured: 3, limit: 2 } }],
    });
  });

  it('stops delivery and unsubscribes at the source as soon as the client completes the subscription', async () => {
    const server = await serve();
    const { client, messages } = graphqlWsClient(server);
    const delivery = deliver(client, { query: SUBSCRIBE_TICKS, variables: { topic: 'stop' } });
    await eventually(() => expect(server.subscribers('stop')).toBe(1));
    await server.pubsub.publish('stop', 1);
    await eventually(() => expect(delivery.results).toHaveLength(1));
    delivery.unsubscribe();
    await eventually(() => expect(server.subscribers('stop')).toBe(0), 200);
    await server.pubsub.publish('stop', 2);
    // A query on the same socket, answered after anything the server could still have sent.
    const query = deliver(client, { query: '{ hello }' });
    expect(await query.ended).toEqual({ completed: true });
    expect(delivery.results).toEqual([{ data: { ticks: 1 } }]);
    expect(messages.filter((message) => 'id' in message && message.id === 'op-1')).toEqual([{ id: 'op-1', type: 'next', payload: { data: { ticks: 1 } } }]);
    expect(server.sockets()).toBe(1);
  });

  it('closes the socket when the client is disposed, and the socket\'s subscriptions end at the source', async () => {
    const server = await serve();
    const { client } = graphqlWsClient(server, { lazy: false });
    deliver(client, { query: SUBSCRIBE_TICKS, variables: { topic: 'disposed' } });
    await eventually(() => expect(server.subscribers('disposed')).toBe(1));
    expect(server.sockets()).toBe(1);
    await client.dispose();
    await eventually(() => expect(server.sockets()).toBe(0));
    expect(server.subscribers('disposed')).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// Authentication
// ---------------------------------------------------------------------------------------------

describe('authentication with connection_init or the upgrade request', () => {
  const ADMIN_KEY = 'sk_live_admin_5b0e3c1d9f7a2468ace0';
  const READER_KEY = 'sk_live_reader_7d1f9b3e5c2a4680bdf1';
  const UNKNOWN_KEY = 'sk_live_unknown_000000000000000000';
  const KEYS = [
    { id: 'admin-key', hash: hashApiKey(ADMIN_KEY), roles: ['admin'] },
    { id: 'reader-key', hash: hashApiKey(READER_KEY), roles: ['reader'] },
  ];

  /** A server that requires an API key; each operation's identity and connectionParams are recorded. */
  async function serveWithKeys(options: RealtimeServerOptions = {}) {
    const seen: Array<{ identity: string; connectionParams: unknown }> = [];
    const server = await serve({
      authenticate: [apiKeyAuth({ keys: KEYS })],
      requireAuthentication: true,
      context: (_request, scope) => {
        seen.push({ identity: scope.identity.id, connectionParams: scope.connectionParams });
        return {};
      },
      ...options,
    });
    return { server, seen };
  }

  /** `ws`'s WebSocket, sending these headers with its upgrade request. */
  function webSocketWithHeaders(headers: Record<string, string>) {
    return class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers });
      }
    };
  }

  it.each([
    ['x-api-key', { 'x-api-key': READER_KEY }],
    ['X-API-Key in another case', { 'X-API-Key': READER_KEY }],
    ['authorization: ApiKey <key>', { authorization: `ApiKey ${READER_KEY}` }],
    ['a headers object with authorization', { headers: { authorization: `ApiKey ${READER_KEY}` } }],
    ['a headers object with x-api-key', { headers: { 'x-api-key': READER_KEY } }],
  ])('accepts the key sent in connectionParams as %s', async (_how, connectionParams) => {
    const { server, seen } = await serveWithKeys();
    const { client } = graphqlWsClient(server, { connectionParams });
    const delivery = deliver(client, { query: '{ hello }' });
    expect(await delivery.ended).toEqual({ completed: true });
    expect(delivery.results).toEqual([{ data: { hello: 'Hello, world!' } }]);
    expect(seen).toEqual([{ identity: 'reader-key', connectionParams }]);
  });

  it.each([
    ['X-API-Key: <key>', { 'x-api-key': ADMIN_KEY }],
    ['Authorization: ApiKey <key>', { authorization: `ApiKey ${ADMIN_KEY}` }],
  ])('accepts the key sent as %s on the upgrade request when connection_init carries none', async (_how, headers) => {
    const { server, seen } = await serveWithKeys();
    const { client } = graphqlWsClient(server, { webSocketImpl: webSocketWithHeaders(headers) });
    const delivery = deliver(client, { query: '{ hello }' });
    expect(await delivery.ended).toEqual({ completed: true });
    expect(seen).toEqual([{ identity: 'admin-key', connectionParams: undefined }]);
  });

  it("takes connection_init's credential in place of the upgrade request's", async () => {
    const { server, seen } = await serveWithKeys();
    const { client } = graphqlWsClient(server, {
      webSocketImpl: webSocketWithHeaders({ 'x-api-key': UNKNOWN_KEY }),
      connectionParams: { authorization: `ApiKey ${READER_KEY}` },
    });
    const delivery = deliver(client, { query: '{ hello }' });
    expect(await delivery.ended).toEqual({ completed: true });
    expect(seen).toEqual([{ identity: 'reader-key', connectionParams: { authorization: `ApiKey ${READER_KEY}` } }]);
  });

  it('closes with 4403 "Forbidden: <why>" when the key is not valid, and runs nothing', async () => {
    const { server, seen } = await serveWithKeys();
    const { client } = graphqlWsClient(server, { connectionParams: { 'x-api-key': UNKNOWN_KEY } });
    const delivery = deliver(client, { query: '{ hello }' });
    const ended = await delivery.ended;
    expect('error' in ended && closeOf(ended.error)).toEqual({ code: 4403, reason: 'Forbidden: The API key is not valid.' });
    expect(seen).toEqual([]);
  });

  it('closes with 4403 when authentication is required and neither connection_init nor the upgrade request has a credential', async () => {
    const { server } = await serveWithKeys();
    const client = await rawClient(server);
    client.send({ type: 'connection_init' });
    expect(await client.closedWithin()).toEqual({
      code: 4403,
      reason: 'Forbidden: This server requires authentication; send an API key (X-API-Key: <key> or Authorization: ApiKey <key>).',
    });
    expect(client.received).toEqual([]);
  });

  it('closes with 4403 when a credential in connection_init is not a string', async () => {
    const { server } = await serveWithKeys();
    const client = await rawClient(server);
    client.send({ type: 'connection_init', payload: { 'x-api-key': 42 } });
    const closed = await client.closedWithin();
    expect(closed.code).toBe(4403);
    expect(closed.reason.startsWith('Forbidden: ')).toBe(true);
  });

  it('cuts a long refusal to the 123 bytes a close frame allows for its reason', async () => {
    const { server } = await serveWithKeys();
    const client = await rawClient(server);
    client.send({ type: 'connection_init', payload: { authorization: 'Bearer some.jwt.token' } });
    const full = 'Forbidden: The Bearer credential is not accepted here. This server accepts an API key (X-API-Key: <key> or Authorization: ApiKey <key>).';
    expect(await client.closedWithin()).toEqual({ code: 4403, reason: full.slice(0, 123) });
  });

  it('closes with 4403 "Forbidden: the credential expired" when the key expires while the socket is open', async () => {
    const expiresAt = Date.now() + 300;
    const server = await serve({ authenticate: [apiKeyAuth({ keys: [{ id: 'brief', hash: hashApiKey(READER_KEY), expiresAt }] })], requireAuthentication: true });
    const client = await rawClient(server);
    await client.init({ 'x-api-key': READER_KEY });
    client.send({ id: 'live', type: 'subscribe', payload: { query: SUBSCRIBE_TICKS, variables: { topic: 'expiring' } } });
    await eventually(() => expect(server.subscribers('expiring')).toBe(1));
    expect(await client.closedWithin(2000)).toEqual({ code: 4403, reason: 'Forbidden: the credential expired' });
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    await eventually(() => expect(server.subscribers('expiring')).toBe(0));
  });

  it('answers subscribe with 4401 while connection_init is still being authenticated', async () => {
    let release: () => void = () => undefined;
    const lookedUp = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = await serve({
      authenticate: [apiKeyAuth({ lookup: async () => (await lookedUp, KEYS[1]) })],
      requireAuthentication: true,
    });
    const client = await rawClient(server);
    client.send({ type: 'connection_init', payload: { 'x-api-key': READER_KEY } });
    client.send({ id: 'early', type: 'subscribe', payload: { query: '{ hello }' } });
    expect(await client.closedWithin()).toEqual({ code: 4401, reason: 'Unauthorized' });
    release();
    expect(client.received).toEqual([]);
  });

  it('applies field-level @auth to every subscription event: a denied field is null with a FORBIDDEN error in the next payload', async () => {
    const { server } = await serveWithKeys();
    const reader = graphqlWsClient(server, { connectionParams: { 'x-api-key': READER_KEY } });
    const admin = graphqlWsClient(server, { connectionParams: { 'x-api-key': ADMIN_KEY } });
    const query = 'subscription { reports(topic: "audit") { value secret } }';
    const readerDelivery = deliver(reader.client, { query });
    const adminDelivery = deliver(admin.client, { query });
    await eventually(() => expect(server.subscribers('audit')).toBe(2));
    await server.pubsub.publish('audit', 1);
    await server.pubsub.publish('audit', 2);
    await eventually(() => expect(readerDelivery.results).toHaveLength(2));
    await eventually(() => expect(adminDelivery.results).toHaveLength(2));
    const denied = (value: number) => ({
      data: { reports: { value, secret: null } },
      errors: [
        {
          message: 'Access to Report.secret requires the role admin.',
          locations: [{ line: 1, column: 48 }],
          path: ['reports', 'secret'],
          extensions: { code: 'FORBIDDEN' },
        },
      ],
    });
    expect(readerDelivery.results).toEqual([denied(1), denied(2)]);
    expect(adminDelivery.results).toEqual([{ data: { reports: { value: 1, secret: SECRET } } }, { data: { reports: { value: 2, secret: SECRET } } }]);
  });

  it("hands the context factory the upgrade request, connection_init's payload as connectionParams, and the identity", async () => {
    const scopes: Array<{ protocol: unknown; connectionParams: unknown; identity: Identity }> = [];
    const server = await serve({
      context: (request: IncomingMessage, scope) => {
        scopes.push({ protocol: request.headers['sec-websocket-protocol'], connectionParams: scope.connectionParams, identity: scope.identity });
        return {};
      },
    });
    const connectionParams = { locale: 'fr', nested: { flags: [1, 2] } };
    const { client } = graphqlWsClient(server, { connectionParams });
    expect(await deliver(client, { query: '{ hello }' }).ended).toEqual({ completed: true });
    expect(await deliver(client, { query: 'subscription { countdown(from: 1) }' }).ended).toEqual({ completed: true });
    expect(scopes).toEqual([
      { protocol: SUBPROTOCOL, connectionParams, identity: ANONYMOUS },
      { protocol: SUBPROTOCOL, connectionParams, identity: ANONYMOUS },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// The protocol, rule by rule, with a raw client
// ---------------------------------------------------------------------------------------------

describe('ConnectionInit', () => {
  it('acknowledges connection_init with connection_ack and no payload', async () => {
    const server = await serve();
    const client = await rawClient(server);
    client.send({ type: 'connection_init', payload: { anything: true } });
    expect(await client.next()).toEqual({ type: 'connection_ack' });
  });

  it('accepts connection_init with a null payload', async () => {
    const server = await serve();
    const client = await rawClient(server);
    client.send({ type: 'connection_init', payload: null });
    expect(await client.next()).toEqual({ type: 'connection_ack' });
  });

  it('closes with 4408 "Connection initialisation timeout" when no connection_init arrives within connectionInitWaitTimeoutMs', async () => {
    const server = await serve({ websocket: { connectionInitWaitTimeoutMs: 100 } });
    const opened = Date.now();
    const client = await rawClient(server);
    expect(await client.closedWithin(1000)).toEqual({ code: 4408, reason: 'Connection initialisation timeout' });
    expect(Date.now() - opened).toBeGreaterThanOrEqual(95);
    await eventually(() => expect(server.sockets()).toBe(0));
  });

  it('keeps an acknowledged socket open past connectionInitWaitTimeoutMs', async () => {
    const server = await serve({ websocket: { connectionInitWaitTimeoutMs: 50 } });
    const client = await rawClient(server);
    await client.init();
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(await client.settle()).toEqual([]);
    expect(server.sockets()).toBe(1);
  });

  it('closes with 4429 "Too many initialisation requests" on a second connection_init', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    client.send({ type: 'connection_init' });
    expect(await client.closedWithin()).toEqual({ code: 4429, reason: 'Too many initialisation requests' });
  });

  it('closes with 4429 on a second connection_init sent before the first was acknowledged', async () => {
    const server = await serve();
    const client = await rawClient(server);
    client.send({ type: 'connection_init' });
    client.send({ type: 'connection_init' });
    expect(await client.closedWithin()).toEqual({ code: 4429, reason: 'Too many initialisation requests' });
    expect(client.received).toEqual([{ type: 'connection_ack' }]);
  });
});

describe('Ping and Pong', () => {
  it('answers ping with pong echoing its payload', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    client.send({ type: 'ping', payload: { sent: 1, nested: { list: ['a'] } } });
    expect(await client.next()).toEqual({ type: 'pong', payload: { sent: 1, nested: { list: ['a'] } } });
  });

  it('answers ping without a payload (or with null) with a pong without one', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    client.send({ type: 'ping' });
    expect(await client.next()).toEqual({ type: 'pong' });
    client.send({ type: 'ping', payload: null });
    expect(await client.next()).toEqual({ type: 'pong' });
  });

  it('answers ping before connection_init too (ping may come at any time)', async () => {
    const server = await serve();
    const client = await rawClient(server);
    client.send({ type: 'ping', payload: { early: true } });
    expect(await client.next()).toEqual({ type: 'pong', payload: { early: true } });
  });

  it('ignores pong: nothing is sent back and the socket stays open', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    client.send({ type: 'pong' });
    client.send({ type: 'pong', payload: { unsolicited: true } });
    expect(await client.settle()).toEqual([]);
    expect(server.sockets()).toBe(1);
  });
});

describe('Subscribe', () => {
  it('closes with 4401 "Unauthorized" on subscribe before connection_init', async () => {
    const server = await serve();
    const client = await rawClient(server);
    client.send({ id: '1', type: 'subscribe', payload: { query: '{ hello }' } });
    expect(await client.closedWithin()).toEqual({ code: 4401, reason: 'Unauthorized' });
    expect(client.received).toEqual([]);
  });

  it('answers a query with next, then complete', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    client.send({ id: 'q', type: 'subscribe', payload: { query: '{ hello }' } });
    expect(await client.next()).toEqual({ id: 'q', type: 'next', payload: { data: { hello: 'Hello, world!' } } });
    expect(await client.next()).toEqual({ id: 'q', type: 'complete' });
  });

  it('answers a request error with one error message carrying the errors, and no complete', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    client.send({ id: 'bad', type: 'subscribe', payload: { query: '{ hello(' } });
    expect(await client.next()).toEqual({
      id: 'bad',
      type: 'error',
      payload: [{ message: 'Syntax Error: Expected Name, found <EOF>.', locations: [{ line: 1, column: 9 }], extensions: { code: 'GRAPHQL_PARSE_FAILED' } }],
    });
    expect(await client.settle()).toEqual([]);
  });

  it('sends each event of a subscription as next, and complete when its source ends', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    client.send({ id: 'c', type: 'subscribe', payload: { query: 'subscription { countdown(from: 2) }' } });
    expect(await client.next()).toEqual({ id: 'c', type: 'next', payload: { data: { countdown: 2 } } });
    expect(await client.next()).toEqual({ id: 'c', type: 'next', payload: { data: { countdown: 1 } } });
    expect(await client.next()).toEqual({ id: 'c', type: 'complete' });
  });

  it('closes with 4409 "Subscriber for <id> already exists" on a subscribe whose id is in use, and ends the subscription', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    client.send({ id: 'dup', type: 'subscribe', payload: { query: SUBSCRIBE_TICKS, variables: { topic: 'dup' } } });
    await eventually(() => expect(server.subscribers('dup')).toBe(1));
    client.send({ id: 'dup', type: 'subscribe', payload: { query: '{ hello }' } });
    expect(await client.closedWithin()).toEqual({ code: 4409, reason: 'Subscriber for dup already exists' });
    await eventually(() => expect(server.subscribers('dup')).toBe(0));
  });

  it('cuts a long id to 80 bytes in the 4409 reason, so that the reason fits a close frame', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    const id = 'x'.repeat(200);
    client.send({ id, type: 'subscribe', payload: { query: SUBSCRIBE_TICKS, variables: { topic: 'long-id' } } });
    client.send({ id, type: 'subscribe', payload: { query: SUBSCRIBE_TICKS, variables: { topic: 'long-id' } } });
    expect(await client.closedWithin()).toEqual({ code: 4409, reason: `Subscriber for ${'x'.repeat(80)} already exists` });
  });

  it('accepts an id again once the client completed its subscription', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    client.send({ id: 'again', type: 'subscribe', payload: { query: SUBSCRIBE_TICKS, variables: { topic: 'first' } } });
    await eventually(() => expect(server.subscribers('first')).toBe(1));
    client.send({ id: 'again', type: 'complete' });
    client.send({ id: 'again', type: 'subscribe', payload: { query: SUBSCRIBE_TICKS, variables: { topic: 'second' } } });
    await eventually(() => expect(server.subscribers('second')).toBe(1));
    expect(server.subscribers('first')).toBe(0);
    await server.pubsub.publish('second', 7);
    expect(await client.next()).toEqual({ id: 'again', type: 'next', payload: { data: { ticks: 7 } } });
  });

  it('accepts an id again once the server completed its operation', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    for (const name of ['one', 'two']) {
      client.send({ id: 'same', type: 'subscribe', payload: { query: `{ hello(name: "${name}") }` } });
      expect(await client.next()).toEqual({ id: 'same', type: 'next', payload: { data: { hello: `Hello, ${name}!` } } });
      expect(await client.next()).toEqual({ id: 'same', type: 'complete' });
    }
  });

  it('answers a subscribe past maxSubscriptionsPerConnection with a TOO_MANY_SUBSCRIPTIONS error, and keeps the socket open', async () => {
    const server = await serve({ websocket: { maxSubscriptionsPerConnection: 2 } });
    const client = await rawClient(server);
    await client.init();
    for (const id of ['a', 'b', 'c']) client.send({ id, type: 'subscribe', payload: { query: SUBSCRIBE_TICKS, variables: { topic: 'capped' } } });
    expect(await client.next()).toEqual({
      id: 'c',
      type: 'error',
      payload: [{ message: 'This connection already runs 2 operations; complete one before starting another.', extensions: { code: 'TOO_MANY_SUBSCRIPTIONS' } }],
    });
    await eventually(() => expect(server.subscribers('capped')).toBe(2));
    client.send({ id: 'a', type: 'complete' });
    client.send({ id: 'c', type: 'subscribe', payload: { query: SUBSCRIBE_TICKS, variables: { topic: 'capped' } } });
    expect(await client.settle()).toEqual([]);
    await eventually(() => expect(server.subscribers('capped')).toBe(2));
    await server.pubsub.publish('capped', 5);
    expect([await client.next(), await client.next()]).toEqual([
      { id: 'b', type: 'next', payload: { data: { ticks: 5 } } },
      { id: 'c', type: 'next', payload: { data: { ticks: 5 } } },
    ]);
    expect(server.sockets()).toBe(1);
  });

  it('ends a subscription that falls more than bufferSize events behind with a SUBSCRIPTION_OVERFLOW error, after the events it holds', async () => {
    const server = await serve({ bufferSize: 2 });
    const client = await rawClient(server);
    await client.init();
    client.send({ id: 'slow', type: 'subscribe', payload: { query: SUBSCRIBE_TICKS, variables: { topic: 'flood' } } });
    await eventually(() => expect(server.subscribers('flood')).toBe(1));
    // Published in one turn: the server's pump takes the first, two wait in the buffer, the fourth overflows it.
    for (let value = 1; value <= 10; value++) void server.pubsub.publish('flood', value);
    expect(server.subscribers('flood')).toBe(0);
    const messages = [await client.next(), await client.next(), await client.next(), await client.next()];
    expect(messages).toEqual([
      { id: 'slow', type: 'next', payload: { data: { ticks: 1 } } },
      { id: 'slow', type: 'next', payload: { data: { ticks: 2 } } },
      { id: 'slow', type: 'next', payload: { data: { ticks: 3 } } },
      {
        id: 'slow',
        type: 'error',
        payload: [{ message: 'The subscriber fell more than 2 events behind and was closed.', extensions: { code: 'SUBSCRIPTION_OVERFLOW' } }],
      },
    ]);
    expect(await client.settle()).toEqual([]);
    expect(server.sockets()).toBe(1);
  });

  it('ends a subscription whose source throws with an error message made by the pipeline\'s streamError, and logs the fault', async () => {
    const log: LogEntry[] = [];
    const server = await serve({ log: (entry) => log.push(entry) });
    const client = await rawClient(server);
    await client.init();
    client.send({ id: 'f', type: 'subscribe', payload: { query: 'subscription { failing }' } });
    expect(await client.next()).toEqual({ id: 'f', type: 'next', payload: { data: { failing: 1 } } });
    expect(await client.next()).toEqual({
      id: 'f',
      type: 'error',
      payload: [{ message: FEED_FAILURE, extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: expect.any(String) } }],
    });
    expect(log.map(({ level, message }) => ({ level, message }))).toEqual([{ level: 'error', message: 'A subscription stream failed.' }]);
  });
});

describe('Complete', () => {
  it('stops a subscription when the client completes it: its source is closed at once and nothing more is sent', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    client.send({ id: 's', type: 'subscribe', payload: { query: SUBSCRIBE_TICKS, variables: { topic: 'completed' } } });
    await eventually(() => expect(server.subscribers('completed')).toBe(1));
    client.send({ id: 's', type: 'complete' });
    await eventually(() => expect(server.subscribers('completed')).toBe(0), 200);
    await server.pubsub.publish('completed', 1);
    expect(await client.settle()).toEqual([]);
  });

  it('closes the source of a subscription completed before the server had subscribed', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    client.send({ id: 'quick', type: 'subscribe', payload: { query: SUBSCRIBE_TICKS, variables: { topic: 'quick' } } });
    client.send({ id: 'quick', type: 'complete' });
    expect(await client.settle()).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(server.subscribers('quick')).toBe(0);
  });

  it('ignores complete for an id it does not know', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    client.send({ id: 'never-subscribed', type: 'complete' });
    expect(await client.settle()).toEqual([]);
    expect(server.sockets()).toBe(1);
  });

  it('ignores complete for an operation the server already completed', async () => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    client.send({ id: 'done', type: 'subscribe', payload: { query: '{ hello }' } });
    expect((await client.next()).type).toBe('next');
    expect(await client.next()).toEqual({ id: 'done', type: 'complete' });
    client.send({ id: 'done', type: 'complete' });
    expect(await client.settle()).toEqual([]);
  });
});

describe('Invalid message: 4400 with the reason', () => {
  const prefix = 'Invalid message received: ';
  it.each<[string, string, string]>([
    ['text that is not JSON', '{"type": "ping"', 'not JSON'],
    ['a JSON array', '[{"type":"ping"}]', 'not an object'],
    ['a JSON string', '"ping"', 'not an object'],
    ['JSON null', 'null', 'not an object'],
    ['a message without a type', '{"id":"1"}', '"type" must be a string'],
    ['a type that is not a string', '{"type":7}', '"type" must be a string'],
    ['an unknown type', '{"type":"subscription"}', 'unexpected type "subscription"'],
    ['next, a type only the server sends', '{"id":"1","type":"next","payload":{"data":null}}', 'unexpected type "next"'],
    ['connection_ack, a type only the server sends', '{"type":"connection_ack"}', 'unexpected type "connection_ack"'],
    ['error, a type only the server sends', '{"id":"1","type":"error","payload":[]}', 'unexpected type "error"'],
    ['subscribe without an id', '{"type":"subscribe","payload":{"query":"{ hello }"}}', 'subscribe needs a non-empty string "id"'],
    ['subscribe with a number as id', '{"id":1,"type":"subscribe","payload":{"query":"{ hello }"}}', 'subscribe needs a non-empty string "id"'],
    ['subscribe with an empty id', '{"id":"","type":"subscribe","payload":{"query":"{ hello }"}}', 'subscribe needs a non-empty string "id"'],
    ['subscribe without a payload', '{"id":"1","type":"subscribe"}', 'subscribe payload must be an object'],
    ['subscribe with an array as payload', '{"id":"1","type":"subscribe","payload":[]}', 'subscribe payload must be an object'],
    ['subscribe whose payload has no query', '{"id":"1","type":"subscribe","payload":{}}', 'subscribe payload needs a string "query"'],
    ['subscribe whose query is not a string', '{"id":"1","type":"subscribe","payload":{"query":{}}}', 'subscribe payload needs a string "query"'],
    ['subscribe whose operationName is a number', '{"id":"1","type":"subscribe","payload":{"query":"{ hello }","operationName":1}}', '"operationName" must be a string or null'],
    ['subscribe whose variables are a list', '{"id":"1","type":"subscribe","payload":{"query":"{ hello }","variables":[]}}', '"variables" must be an object or null'],
    ['subscribe whose extensions are a string', '{"id":"1","type":"subscribe","payload":{"query":"{ hello }","extensions":"x"}}', '"extensions" must be an object or null'],
    ['complete without an id', '{"type":"complete"}', 'complete needs a non-empty string "id"'],
    ['complete with a number as id', '{"id":3,"type":"complete"}', 'complete needs a non-empty string "id"'],
    ['connection_init with a string payload', '{"type":"connection_init","payload":"token"}', 'connection_init payload must be an object'],
    ['connection_init with a list payload', '{"type":"connection_init","payload":["token"]}', 'connection_init payload must be an object'],
    ['ping with a number payload', '{"type":"ping","payload":1}', 'ping payload must be an object'],
    ['pong with a list payload', '{"type":"pong","payload":[]}', 'pong payload must be an object'],
  ])('closes on %s', async (_what, text, reason) => {
    const server = await serve();
    const client = await rawClient(server);
    await client.init();
    client.send(text);
    expect(await client.closedWithin()).toEqual({ code: 4400, reason: `${prefix}${reason}` });
    expect(client.unread()).toEqual([]);
  });

  it('checks the shape of a message before anything else: an invalid subscribe before connection_init is 4400, not 4401', async () => {
    const server = await serve();
    const client = await rawClient(server);
    client.send({ type: 'subscribe', payload: { query: '{ hello }' } });
    expect(await client.closedWithin()).toEqual({ code: 4400, reason: `${prefix}subscribe needs a non-empty string "id"` });
  });

  it('cuts an unknown type to 40 bytes at a character boundary in the reason', async () => {
    const server = await serve();
    const client = await rawClient(server);
    client.send({ type: 'é'.repeat(30) });
    expect(await client.closedWithin()).toEqual({ code: 4400, reason: `${prefix}unexpected type "${'é'.repeat(20)}"` });
  });
});

// ---------------------------------------------------------------------------------------------
// What the adapter adds: the upgrade, connection limits, shutdown
// ---------------------------------------------------------------------------------------------

describe('the upgrade', () => {
  const NOT_ACCEPTABLE = { error: { code: 'SUBPROTOCOL_NOT_ACCEPTABLE', message: 'WebSocket connections must use the graphql-transport-ws subprotocol.' } };

  it('refuses an upgrade without a subprotocol with 400 SUBPROTOCOL_NOT_ACCEPTABLE', async () => {
    const server = await serve();
    const refusal = await upgradeRefusal(server.wsUrl, { protocols: [] });
    expect(refusal).toEqual({ status: 400, contentType: 'application/json; charset=utf-8', body: JSON.stringify(NOT_ACCEPTABLE) });
    expect(server.sockets()).toBe(0);
  });

  it('refuses an upgrade offering only the legacy graphql-ws subprotocol with 400', async () => {
    const server = await serve();
    const refusal = await upgradeRefusal(server.wsUrl, { protocols: ['graphql-ws'] });
    expect(refusal.status).toBe(400);
    expect(JSON.parse(refusal.body)).toEqual(NOT_ACCEPTABLE);
  });

  it('accepts an upgrade offering graphql-transport-ws among others, and selects it', async () => {
    const server = await serve();
    const client = await rawClient(server, { protocols: ['graphql-ws', SUBPROTOCOL] });
    expect(client.socket.protocol).toBe(SUBPROTOCOL);
    await client.init();
  });

  it('refuses an upgrade at another path with 404 NOT_FOUND', async () => {
    const server = await serve();
    const refusal = await upgradeRefusal(`ws://127.0.0.1:${server.port}/subscriptions`);
    expect(refusal.status).toBe(404);
    expect(JSON.parse(refusal.body)).toEqual({ error: { code: 'NOT_FOUND', message: 'Nothing is served at /subscriptions; the GraphQL endpoint is /graphql.' } });
  });

  it('accepts an upgrade at the endpoint with a query string', async () => {
    const server = await serve();
    const client = await RawClient.open(`${server.wsUrl}?client=tests`);
    onTestFinished(() => client.terminate());
    await client.init();
  });

  it('serves WebSockets at a custom path', async () => {
    const server = await serve({ path: '/api' });
    expect(server.wsUrl).toBe(`ws://127.0.0.1:${server.port}/api`);
    const client = await rawClient(server);
    await client.init();
    expect((await upgradeRefusal(`ws://127.0.0.1:${server.port}/graphql`)).status).toBe(404);
  });

  it('refuses the upgrade past maxConnections with 503 SERVICE_UNAVAILABLE, and accepts again once a socket closed', async () => {
    const server = await serve({ websocket: { maxConnections: 2 } });
    const first = await rawClient(server);
    await rawClient(server);
    const refusal = await upgradeRefusal(server.wsUrl);
    expect(refusal.status).toBe(503);
    expect(JSON.parse(refusal.body)).toEqual({ error: { code: 'SERVICE_UNAVAILABLE', message: 'The server has 2 WebSocket connections open already.' } });
    await first.close();
    await eventually(() => expect(server.sockets()).toBe(1));
    const third = await rawClient(server);
    await third.init();
  });

  it('with websocket: false, has no WebSocket transport: an upgrade request is answered as a plain GET and never switches protocols', async () => {
    const server = await serve({ websocket: false });
    expect(server.server.websocket).toBeNull();
    expect(server.server.listenerCount('upgrade')).toBe(0);
    const refusal = await upgradeRefusal(server.wsUrl);
    expect(refusal.status).toBe(400);
    // A plain GET with neither a Content-Type nor a preflight header: what CSRF prevention (on by default) refuses.
    expect((JSON.parse(refusal.body) as { error: { code: string } }).error.code).toBe('CSRF_PREVENTED');
    const marked = await upgradeRefusal(server.wsUrl, { headers: { 'x-graphql-csrf': '1' } });
    expect(marked.status).toBe(400);
    expect(JSON.parse(marked.body)).toEqual({
      errors: [{ message: 'The request has no "query"; expected the GraphQL document as a string.', extensions: { code: 'BAD_REQUEST' } }],
    });
  });
});

describe('shutdown', () => {
  it('closes every open socket with 1001, ends their subscriptions at the source, and resolves', async () => {
    const server = await serve();
    const clients = [await rawClient(server), await rawClient(server)];
    for (const [index, client] of clients.entries()) {
      await client.init();
      client.send({ id: 'live', type: 'subscribe', payload: { query: SUBSCRIBE_TICKS, variables: { topic: 'shutdown' } } });
      await eventually(() => expect(server.subscribers('shutdown')).toBe(index + 1));
    }
    const done = server.server.shutdown();
    for (const client of clients) expect(await client.closedWithin()).toEqual({ code: 1001, reason: 'The server is shutting down' });
    await within(done, 2000, 'shutdown() to resolve');
    await eventually(() => expect(server.subscribers('shutdown')).toBe(0));
    expect(server.sockets()).toBe(0);
  });
});
