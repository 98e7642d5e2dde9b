/**
 * OpenTelemetry spans over a running server, recorded by the real SDK (sdk-trace-base's
 * in-memory exporter): the exact span tree, names, attributes and parents; and nothing
 * recorded, nothing broken, without a registered provider.
 */
import { tracingChannel } from 'node:diagnostics_channel';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchLoader, createPubSub, createServer, makeSchema } from '../src/index.ts';
import type { GraphQLServer, ServerOptions } from '../src/index.ts';
import { openTelemetryLoaded, telemetry } from '../src/observability/openTelemetry.ts';
import { RawClient, openEventStream } from './support/realtime.ts';
import { headersOf, startReceiver, startWebhooks, waitUntil } from './support/webhooks.ts';

const TYPE_DEFS = /* GraphQL */ `
  type Query {
    books: [Book!]!
    book(title: String!): Book
    failing: String
    lookup: String!
  }
  type Book {
    title: String!
    author: Author!
  }
  type Author {
    name: String!
  }
  type Mutation {
    publish(value: Int!): Int!
  }
  type Subscription {
    ticks: Int!
  }
`;

const BOOKS = [
  { title: 'A', authorId: 'a1' },
  { title: 'B', authorId: 'a2' },
  { title: 'C', authorId: 'a1' },
];

interface Context {
  readonly authors: BatchLoader<string, { name: string }>;
}

function schema(pubsub: ReturnType<typeof createPubSub>) {
  return makeSchema({
    typeDefs: TYPE_DEFS,
    resolvers: {
      Query: {
        books: async () => BOOKS,
        book: (_parent: unknown, { title }: { title: string }) => BOOKS.find((book) => book.title === title) ?? null,
        failing: () => {
          throw new Error('the database is down');
        },
        // A resolver that makes spans of its own, as a database client's instrumentation does: one at once, one after an await.
        lookup: async () => {
          trace.getTracer('app').startSpan('db.connect').end();
          await new Promise((resolve) => setTimeout(resolve, 1));
          trace.getTracer('app').startSpan('db.query').end();
          return 'found';
        },
      },
      Book: { author: (book: { authorId: string }, _args: unknown, ctx: Context) => ctx.authors.load(book.authorId) },
      Mutation: {
        publish: async (_parent: unknown, { value }: { value: number }) => {
          await pubsub.publish('ticks', value);
          return value;
        },
      },
      Subscription: { ticks: { subscribe: () => pubsub.subscribe<number>('ticks'), resolve: (value: number) => value } },
    },
  });
}

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Started {
  readonly server: GraphQLServer;
  readonly url: string;
  readonly pubsub: ReturnType<typeof createPubSub>;
  readonly lines: string[];
}

async function serve(options: Partial<ServerOptions> = {}): Promise<Started> {
  const pubsub = createPubSub();
  const lines: string[] = [];
  const server = createServer({
    schema: schema(pubsub),
    reportCost: false,
    shareSubscriptions: false,
    logLevel: 'info',
    logger: (line) => lines.push(line),
    context: () => ({ authors: new BatchLoader(async (ids: ReadonlyArray<string>) => ids.map((id) => ({ name: `Author ${id}` })), { name: 'authorById' }) }),
    ...options,
  } as ServerOptions);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())), () => server.closeAllConnections());
  return { server, url: `http://127.0.0.1:${address.port}/graphql`, pubsub, lines };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return response.json();
}

/** The one request line among a server's log lines (the first is the line saying where it listens). */
function requestLine(lines: ReadonlyArray<string>): Record<string, unknown> {
  const requests = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['msg'] === 'request');
  expect(requests).toHaveLength(1);
  return requests[0] as Record<string, unknown>;
}

/** A span as compared: its name, kind, attributes, status, events, and its parent's name (`remote <id>` outside the spans given). */
function shape(span: ReadableSpan, spans: ReadonlyArray<ReadableSpan>) {
  const parentId = span.parentSpanContext?.spanId;
  const parent = spans.find((each) => each.spanContext().spanId === parentId);
  return {
    name: span.name,
    kind: span.kind,
    parent: parent === undefined ? (parentId === undefined ? null : `remote ${parentId}`) : parent.name,
    attributes: span.attributes,
    status: span.status,
    events: span.events.map((event) => ({ name: event.name, attributes: event.attributes })),
  };
}

const exporter = new InMemorySpanExporter();

/** Every span ended so far, in the order they ended, once `count` have (ends can follow an answer by a turn). */
async function spans(count: number): Promise<ReadableSpan[]> {
  for (let i = 0; i < 100 && exporter.getFinishedSpans().length < count; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  const finished = exporter.getFinishedSpans();
  expect(finished.length).toBe(count);
  exporter.reset();
  return [...finished];
}

const SERVER = 1;
const CLIENT = 2;
const INTERNAL = 0;
const OK = { code: 0 };

describe('without a registered tracer provider', () => {
  it('records nothing and answers as before; request lines carry no trace id', async () => {
    expect(await openTelemetryLoaded).toBe(true);
    const started = await serve();
    const answer = await post(started.url, { query: '{ books { title author { name } } }' }, { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
    expect(answer.data.books).toHaveLength(3);
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(requestLine(started.lines)).not.toHaveProperty('traceId');
  });
});

describe('with a registered tracer provider', () => {
  const contextManager = new AsyncLocalStorageContextManager();
  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  });
  afterAll(() => {
    trace.disable();
    context.disable();
  });

  it('a nested batched query: server span, operation span, one batch span under it, continuing the caller\'s trace', async () => {
    const started = await serve();
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const answer = await post(started.url, { query: 'query Shelf { books { title author { name } } }' }, { traceparent, tracestate: 'vendor=x', 'user-agent': 'tests' });
    expect(answer.data.books.map((book: any) => book.author.name)).toEqual(['Author a1', 'Author a2', 'Author a1']);
    const finished = await spans(3);
    expect(finished.map((span) => shape(span, finished))).toEqual([
      { name: 'batch authorById', kind: INTERNAL, parent: 'query Shelf', attributes: { 'glassbox.batch.loader': 'authorById', 'glassbox.batch.keys': 2 }, status: OK, events: [] },
      { name: 'query Shelf', kind: INTERNAL, parent: 'POST /graphql', attributes: { 'graphql.operation.type': 'query', 'graphql.operation.name': 'Shelf' }, status: OK, events: [] },
      {
        name: 'POST /graphql',
        kind: SERVER,
        parent: 'remote b7ad6b7169203331',
        attributes: { 'http.request.method': 'POST', 'url.path': '/graphql', 'url.scheme': 'http', 'http.route': '/graphql', 'user_agent.original': 'tests', 'http.response.status_code': 200 },
        status: OK,
        events: [],
      },
    ]);
    for (const span of finished) expect(span.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(finished[2]?.spanContext().traceState?.serialize()).toBe('vendor=x');
    // The request line joins its trace.
    const line = requestLine(started.lines);
    expect([line.traceId, line.spanId]).toEqual(['0af7651916cd43dd8448eb211c80319c', finished[2]?.spanContext().spanId]);
  });

  it('a mutation, its document on its span when asked', async () => {
    const started = await serve({ openTelemetry: { document: true } });
    await post(started.url, { query: 'mutation { publish(value: 1) }' });
    const finished = await spans(2);
    expect(finished.map((span) => shape(span, finished))).toEqual([
      { name: 'mutation', kind: INTERNAL, parent: 'POST /graphql', attributes: { 'graphql.operation.type': 'mutation', 'graphql.document': 'mutation { publish(value: 1) }' }, status: OK, events: [] },
      expect.objectContaining({ name: 'POST /graphql', parent: null }),
    ]);
    expect(finished[0]?.spanContext().traceId).toBe(finished[1]?.spanContext().traceId);
  });

  it('a failing resolver: status error, an exception event; its log entry carries the trace id', async () => {
    const started = await serve();
    const answer = await post(started.url, { query: 'query Broken { failing }' });
    expect(answer.errors[0].extensions.code).toBe('INTERNAL_SERVER_ERROR');
    const finished = await spans(2);
    const operation = shape(finished[0] as ReadableSpan, finished);
    expect(operation).toMatchObject({ name: 'query Broken', status: { code: 2, message: 'the database is down' } });
    expect(operation.events).toHaveLength(1);
    expect(operation.events[0]).toMatchObject({
      name: 'exception',
      attributes: { 'exception.type': 'INTERNAL_SERVER_ERROR', 'exception.message': 'the database is down' },
    });
    expect(String(operation.events[0]?.attributes?.['exception.stacktrace'])).toMatch(/^Error: the database is down\n/);
    const logged = started.lines.map((line) => JSON.parse(line)).find((line) => line.level === 'error');
    expect(logged).toMatchObject({ msg: 'Unexpected error in a resolver: the database is down', traceId: finished[0]?.spanContext().traceId, spanId: finished[0]?.spanContext().spanId });
  });

  it('a subscription event over Server-Sent Events: a span under its operation\'s', async () => {
    const started = await serve();
    const stream = await openEventStream(started.url, { query: 'subscription Ticks { ticks }' });
    cleanups.push(() => stream.abort());
    // The operation's span ends once it is subscribed (the request's stays open with its stream).
    const [operation] = await spans(1);
    expect([operation?.name, operation?.attributes]).toEqual(['subscription Ticks', { 'graphql.operation.type': 'subscription', 'graphql.operation.name': 'Ticks' }]);
    for (let i = 0; i < 100 && started.pubsub.subscriberCount('ticks') === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    await started.pubsub.publish('ticks', 7);
    const item = await stream.reader.next();
    expect(item).toMatchObject({ event: 'next', data: '{"data":{"ticks":7}}' });
    const [event] = await spans(1);
    expect([event?.name, event?.kind, event?.parentSpanContext?.spanId, event?.spanContext().traceId]).toEqual([
      'subscription Ticks event',
      INTERNAL,
      operation?.spanContext().spanId,
      operation?.spanContext().traceId,
    ]);
    stream.abort();
    // The operation's parent is its request's server span, which ends when the stream is closed.
    const [request] = await spans(1);
    expect([request?.name, request?.kind, request?.attributes['http.response.status_code']]).toEqual(['POST /graphql', SERVER, 499]);
    expect([operation?.parentSpanContext?.spanId, operation?.spanContext().traceId]).toEqual([request?.spanContext().spanId, request?.spanContext().traceId]);
  });

  it('a webhook delivery: a client span, its traceparent sent to the receiver', async () => {
    const receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    const test = await startWebhooks();
    cleanups.push(() => test.close());
    const { endpoint } = await test.webhooks.register({ url: receiver.url, events: ['review.created'] });
    exporter.reset();
    await test.webhooks.publish('review.created', { id: 'r1' });
    await waitUntil(async () => receiver.requests.length === 1, 5000, () => 'a delivery');
    await waitUntil(async () => (await test.webhooks.deliveries(endpoint.id, 10))[0]?.status === 'delivered', 5000, () => 'its record');
    const finished = exporter.getFinishedSpans().filter((span) => span.kind === CLIENT);
    expect(finished.map((span) => shape(span, finished))).toEqual([
      {
        name: 'POST',
        kind: CLIENT,
        parent: null,
        attributes: {
          'http.request.method': 'POST',
          'url.full': receiver.url,
          'server.address': '127.0.0.1',
          'server.port': Number(new URL(receiver.url).port),
          'http.response.status_code': 200,
        },
        status: OK,
        events: [],
      },
    ]);
    const { traceId, spanId } = (finished[0] as ReadableSpan).spanContext();
    expect(headersOf(receiver.requests[0]!)['traceparent']).toBe(`00-${traceId}-${spanId}-01`);
  });

  describe('resolver spans, WebSocket operations, resource routes', () => {
    // What an earlier test left (a webhook's client span) is not these tests'.
    beforeEach(() => exporter.reset());

  it('resolver spans when asked: graphql.resolve <path>, under the nearest field above, else the operation', async () => {
    const started = await serve({ openTelemetry: { resolvers: true } });
    await post(started.url, { query: 'query Shelf { books { title author { name } } }' });
    const finished = await spans(13);
    const resolvers = finished.filter((span) => span.name.startsWith('graphql.resolve ')).map((span) => shape(span, finished));
    resolvers.sort((a, b) => (a.name < b.name ? -1 : 1));
    const field = (path: string, name: string, type: string, parentType: string, parent: string) => ({
      name: `graphql.resolve ${path}`,
      kind: INTERNAL,
      parent,
      attributes: { 'graphql.field.name': name, 'graphql.field.path': path, 'graphql.field.type': type, 'graphql.parent.name': parentType },
      status: OK,
      events: [],
    });
    const book = (index: number) => [
      field(`books.${index}.author`, 'author', 'Author!', 'Book', 'graphql.resolve books'),
      field(`books.${index}.author.name`, 'name', 'String!', 'Author', `graphql.resolve books.${index}.author`),
      field(`books.${index}.title`, 'title', 'String!', 'Book', 'graphql.resolve books'),
    ];
    expect(resolvers).toEqual([field('books', 'books', '[Book!]!', 'Query', 'query Shelf'), ...book(0), ...book(1), ...book(2)]);
    // The batch and the operation as without resolver spans; every span in one trace.
    expect(finished.filter((span) => !span.name.startsWith('graphql.resolve ')).map((span) => [span.name, shape(span, finished).parent])).toEqual([
      ['batch authorById', 'query Shelf'],
      ['query Shelf', 'POST /graphql'],
      ['POST /graphql', null],
    ]);
    expect(new Set(finished.map((span) => span.spanContext().traceId)).size).toBe(1);
    // A resolver's span ends when its value is there: `books` (a promise) before its fields start.
    const ended = (name: string) => finished.findIndex((span) => span.name === name);
    expect(ended('graphql.resolve books')).toBeLessThan(ended('graphql.resolve books.0.title'));
  });

  it('a failing resolver\'s span: status error, an exception event', async () => {
    const started = await serve({ openTelemetry: { resolvers: true } });
    await post(started.url, { query: '{ failing }' });
    const finished = await spans(3);
    const failing = shape(finished[0] as ReadableSpan, finished);
    expect(failing).toMatchObject({ name: 'graphql.resolve failing', parent: 'query', status: { code: 2, message: 'the database is down' } });
    expect(failing.events).toEqual([{ name: 'exception', attributes: expect.objectContaining({ 'exception.type': 'Error', 'exception.message': 'the database is down' }) }]);
  });

  /** graphql:resolve is unsubscribed a second after the last operation that asked for resolver spans. */
  async function channelLetGo(): Promise<void> {
    await vi.waitFor(() => expect(tracingChannel('graphql:resolve').hasSubscribers).toBe(false), { timeout: 3000, interval: 50 });
  }

  it('resolver spans for deferred fields too, until the last payload; then the channel is let go', async () => {
    const started = await serve({ openTelemetry: { resolvers: true } });
    const response = await fetch(started.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'multipart/mixed; incrementalSpec=v0.2, application/json' },
      body: JSON.stringify({ query: 'query Shelf { books { title ... @defer { author { name } } } }' }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('"hasNext":false');
    const finished = await spans(13);
    const parents = new Map(finished.map((span) => [span.name, shape(span, finished).parent]));
    expect(parents.get('graphql.resolve books.2.author')).toBe('graphql.resolve books');
    expect(parents.get('graphql.resolve books.2.author.name')).toBe('graphql.resolve books.2.author');
    expect(parents.get('batch authorById')).toBe('query Shelf');
    await channelLetGo();
  });

  // The spans a resolver makes itself (one at once, one after an await), and their parents.
  it.each([
    {
      when: 'with resolver spans, under its span, which is active while it runs',
      options: { openTelemetry: { resolvers: true } },
      parents: [['db.connect', 'graphql.resolve lookup'], ['db.query', 'graphql.resolve lookup'], ['graphql.resolve lookup', 'query'], ['query', 'POST /graphql'], ['POST /graphql', null]],
    },
    {
      when: 'without them, under the operation\'s span',
      options: {},
      parents: [['db.connect', 'query'], ['db.query', 'query'], ['query', 'POST /graphql'], ['POST /graphql', null]],
    },
  ])('the spans a resolver makes, before and after an await: $when', async ({ options, parents }) => {
    const started = await serve(options);
    await post(started.url, { query: '{ lookup }' });
    const finished = await spans(parents.length);
    expect(finished.map((span) => [span.name, shape(span, finished).parent])).toEqual(parents);
  });

  it('no resolver spans unless asked, even once another server asked for them', async () => {
    const asking = await serve({ openTelemetry: { resolvers: true } });
    await post(asking.url, { query: '{ books { title } }' });
    await spans(6);
    // The channel is listened to while an operation that asked is in flight, and a second after.
    await channelLetGo();
    const started = await serve();
    await post(started.url, { query: '{ books { title } }' });
    expect((await spans(2)).map((span) => span.name)).toEqual(['query', 'POST /graphql']);
  });

  it('a WebSocket operation: a root span of its own, linked to the trace the upgrade request named', async () => {
    const started = await serve();
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const client = await RawClient.open(started.url.replace('http:', 'ws:'), { headers: { traceparent } });
    cleanups.push(() => client.close());
    await client.init();
    client.send({ id: '1', type: 'subscribe', payload: { query: 'query Shelf { books { title } }' } });
    expect(await client.next()).toEqual({ id: '1', type: 'next', payload: { data: { books: [{ title: 'A' }, { title: 'B' }, { title: 'C' }] } } });
    const [operation] = await spans(1);
    expect(shape(operation as ReadableSpan, [])).toEqual({
      name: 'query Shelf',
      kind: INTERNAL,
      parent: null,
      attributes: { 'graphql.operation.type': 'query', 'graphql.operation.name': 'Shelf' },
      status: OK,
      events: [],
    });
    expect(operation?.spanContext().traceId).not.toBe('0af7651916cd43dd8448eb211c80319c');
    expect(operation?.links.map((link) => [link.context.traceId, link.context.spanId, link.context.isRemote])).toEqual([['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331', true]]);
  });

  it('a WebSocket operation without a traceparent: a root span, no link', async () => {
    const started = await serve();
    const client = await RawClient.open(started.url.replace('http:', 'ws:'));
    cleanups.push(() => client.close());
    await client.init();
    client.send({ id: '1', type: 'subscribe', payload: { query: 'mutation { publish(value: 2) }' } });
    expect(await client.next()).toEqual({ id: '1', type: 'next', payload: { data: { publish: 2 } } });
    const [operation] = await spans(1);
    expect([operation?.name, operation?.parentSpanContext, operation?.links]).toEqual(['mutation', undefined, []]);
  });

  it('a resource route: the request span named by the route\'s template, http.route set', async () => {
    const started = await serve({ resources: { version: 'v1', routes: { 'GET /books/{title}': 'query Book($title: String!) { book(title: $title) { title } }' } } });
    const response = await fetch(started.url.replace('/graphql', '/api/v1/books/B'));
    expect(await response.json()).toEqual({ data: { title: 'B' } });
    const finished = await spans(2);
    expect(finished.map((span) => shape(span, finished))).toEqual([
      { name: 'query Book', kind: INTERNAL, parent: 'GET /api/v1/books/{title}', attributes: { 'graphql.operation.type': 'query', 'graphql.operation.name': 'Book' }, status: OK, events: [] },
      {
        name: 'GET /api/v1/books/{title}',
        kind: SERVER,
        parent: null,
        attributes: { 'http.request.method': 'GET', 'url.path': '/api/v1/books/B', 'url.scheme': 'http', 'http.route': '/api/v1/books/{title}', 'user_agent.original': 'node', 'http.response.status_code': 200 },
        status: OK,
        events: [],
      },
    ]);
  });
  });
});

describe('a tracer provider registered, removed and registered again', () => {
  it('is seen at once each time: telemetry() answers a span maker while one is registered (a new one for a new provider), and null after trace.disable()', async () => {
    expect(await openTelemetryLoaded).toBe(true);
    expect(telemetry()).toBeNull();
    const first = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    expect(trace.setGlobalTracerProvider(first)).toBe(true);
    const made = telemetry();
    expect(made).not.toBeNull();
    expect(telemetry()).toBe(made);
    trace.disable();
    expect(telemetry()).toBeNull();
    expect(trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }))).toBe(true);
    const again = telemetry();
    expect(again).not.toBeNull();
    expect(again).not.toBe(made);
    trace.disable();
    expect(telemetry()).toBeNull();
  });

  it('applies from the next request on: a request that arrived without one gets no spans, its operation none either', async () => {
    expect(await openTelemetryLoaded).toBe(true);
    const started = await serve();
    // A context manager, as an SDK's setup has: the operation's span is found as the active one when its operation is chosen.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    // The server's own 'request' listener runs first and finds no provider; this one registers
    // it before the request's body is read and its operation runs (in a later turn).
    let registered = false;
    started.server.on('request', () => {
      if (!registered) registered = trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    });
    try {
      expect(await post(started.url, { query: 'query First { books { title } }' })).toEqual({ data: { books: [{ title: 'A' }, { title: 'B' }, { title: 'C' }] } });
      expect(registered).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(exporter.getFinishedSpans()).toEqual([]);
      expect(await post(started.url, { query: 'query Second { books { title } }' })).toEqual({ data: { books: [{ title: 'A' }, { title: 'B' }, { title: 'C' }] } });
      expect((await spans(2)).map((span) => span.name)).toEqual(['query Second', 'POST /graphql']);
    } finally {
      trace.disable();
      context.disable();
    }
  });
});
