/**
 * What an anonymous client can do to a server, and what it gets instead of harm: bounded
 * memory (nothing refused is cached; caches bounded in bytes), documents whose validation would
 * hold the event loop refused before validation, 4xx rather than 5xx for what graphql-js throws,
 * CSRF prevention on resource routes and WebSocket upgrades, per-client caps on long-lived
 * connections, and refusals that are charged to the rate limits.
 */
import net from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHandler, makeSchema } from '../src/index.ts';
import { DEFAULT_DOCUMENT_CACHE_BYTES } from '../src/server/pipeline.ts';
import { EventStream } from '../src/transports/http/eventStream.ts';
import { json, postJson, send } from './support/httpServer.ts';
import { GRAPHQL_MAJOR, byMajor } from './support/graphqlMajor.ts';
import { RawClient, openEventStream, startRealtimeServer, upgradeRefusal } from './support/realtime.ts';
import type { RealtimeServer } from './support/realtime.ts';
import { rateLimitItems } from './support/rateLimitHelpers.ts';
import { bodyOf, call, errorBody, startDemoResources } from './support/resources.ts';
import type { CallOptions, CallResponse, DemoResourceServer } from './support/resources.ts';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

describe('the document cache', () => {
  const schema = makeSchema({ typeDefs: 'type Query { hello: String }', resolvers: { Query: { hello: () => 'world' } } });
  const post = (handle: ReturnType<typeof createHandler>, query: string) =>
    handle({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }), raw: null });

  it('keeps no document it refused: each refusal is parsed (or validated) again, and a passing document once', async () => {
    const handle = createHandler({ schema });
    const counts = handle.pipeline.cacheCounts;
    for (const query of ['{ hello', '{ nope }', '{ hello }']) {
      await post(handle, query);
      await post(handle, query);
    }
    expect({ hits: counts.documentHits, misses: counts.documentMisses }).toEqual({ hits: 1, misses: 5 });
  });

  it('holds no more than documentCacheBytes, at about 120 bytes a character of query text, however many documents come', async () => {
    const handle = createHandler({ schema, documentCacheBytes: 100_000 });
    // Distinct valid documents of about 330 characters: some 40 KB each, by the estimate.
    for (let i = 0; i < 40; i++) await post(handle, `query Q${i} { ${'hello '.repeat(50)}}`);
    expect(handle.pipeline.cacheCounts.documentCacheBytes).toBeGreaterThan(0);
    expect(handle.pipeline.cacheCounts.documentCacheBytes).toBeLessThanOrEqual(100_000);
    expect(DEFAULT_DOCUMENT_CACHE_BYTES).toBe(32 * 1024 * 1024);
  });
});

describe('documents whose validation would hold the event loop', () => {
  let server: RealtimeServer;
  beforeAll(async () => {
    server = await startRealtimeServer();
  });
  afterAll(() => server.close());

  it('refuses before validation the same field repeated a thousand times in one selection set (12.5 KB, under the token limit)', async () => {
    const query = `{ ${'hello '.repeat(1249)}}`;
    const response = await postJson(server.url, { query }, GRAPHQL_RESPONSE);
    expect(response.status).toBe(400);
    expect(json(response)).toEqual({
      errors: [
        { message: 'A selection set lists 1249 selections; the limit is 250.', extensions: { code: 'BREADTH_LIMIT_EXCEEDED', measured: 1249, limit: 250 } },
        {
          message: 'The document merges 779376 pairs of fields and fragments in its selection sets; the limit is 2000.',
          extensions: { code: 'FIELD_MERGE_LIMIT_EXCEEDED', measured: 779376, limit: 2000 },
        },
      ],
    });
  });
});

describe('what graphql-js throws is a 400, never a 500', () => {
  let server: RealtimeServer;
  beforeAll(async () => {
    server = await startRealtimeServer({ production: true });
  });
  afterAll(() => server.close());

  it("answers a subscription whose root field's @skip reads a variable with GRAPHQL_VALIDATION_FAILED, over POST and GET", async () => {
    const query = 'subscription ($s: Boolean!) { ticks(topic: "t") @skip(if: $s) }';
    const message = byMajor({
      16: 'The document could not be validated: Argument "if" of required type "Boolean!" was provided the variable "$s" which was not provided a runtime value.',
      17: 'Anonymous Subscription must not use `@skip` or `@include` directives in the top level selection.',
    });
    const posted = await postJson(server.url, { query, variables: { s: false } }, GRAPHQL_RESPONSE);
    // With the header CSRF prevention (on by default) asks of a GET.
    const got = await send(`${server.url}?query=${encodeURIComponent(query)}`, { headers: { accept: GRAPHQL_RESPONSE, 'x-graphql-csrf': '1' } });
    for (const response of [posted, got]) {
      expect(response.status).toBe(400);
      expect((json(response) as { errors: Array<{ message: string; extensions: unknown }> }).errors.map((error) => [error.message, error.extensions])).toEqual([
        [message, { code: 'GRAPHQL_VALIDATION_FAILED' }],
      ]);
    }
  });

  it('answers an event-stream subscription that @skip leaves without a root field with a 400 that says so', async () => {
    const response = await postJson(server.url, { query: 'subscription { ticks(topic: "t") @skip(if: true) }' }, 'text/event-stream');
    if (GRAPHQL_MAJOR >= 17) {
      // graphql 17's validation forbids @skip and @include on a subscription's root fields.
      expect(response.status).toBe(200);
      expect(response.text).toContain('GRAPHQL_VALIDATION_FAILED');
      return;
    }
    expect(response.status).toBe(200);
    expect(response.text).toBe(
      `event: next\ndata: ${JSON.stringify({ errors: [{ message: 'The subscription selects no root field: its @skip and @include directives left none.', extensions: { code: 'BAD_REQUEST' } }] })}\n\nevent: complete\ndata:\n\n`,
    );
  });

  it('serves an event-stream subscription whose variables nest thousands of levels deep, the unused ones never written out', async () => {
    // Written as text: JSON.stringify itself would exhaust the stack on it.
    const deep = `${'{"deeper":'.repeat(6000)}"bottom"${'}'.repeat(6000)}`;
    const query = JSON.stringify('subscription ($topic: String!) { ticks(topic: $topic) }');
    const body = `{"query":${query},"variables":{"topic":"deep","unused":${deep}}}`;
    const stream = await openEventStream(server.url, body);
    try {
      expect(stream.response.status).toBe(200);
      await expect.poll(() => server.subscribers('deep')).toBe(1);
      await server.pubsub.publish('deep', 7);
      expect(await stream.reader.next()).toEqual({ event: 'next', data: JSON.stringify({ data: { ticks: 7 } }) });
    } finally {
      stream.abort();
    }
  });
});

describe('CSRF prevention on resource routes (on by default)', () => {
  let demo: DemoResourceServer;
  beforeAll(async () => {
    demo = await startDemoResources();
  });
  afterAll(() => demo.close());

  const refused = errorBody(
    'CSRF_PREVENTED',
    'This request has been blocked as a possible cross-site request forgery: send it with a Content-Type such as application/json, or with a header named x-graphql-csrf, apollo-require-preflight or x-apollo-operation-name.',
  );

  it('refuses a form-encoded, a text or an empty-bodied POST (variables in the query string) before it runs', async () => {
    const before = demo.data.reviews.length;
    const attempts: CallOptions[] = [
      { headers: { 'x-api-key': 'demo-editor', 'content-type': 'application/x-www-form-urlencoded' }, body: 'stars=1' },
      { headers: { 'x-api-key': 'demo-editor', 'content-type': 'text/plain' }, body: '{"stars":1}' },
      { headers: { 'x-api-key': 'demo-editor' } },
    ];
    for (const options of attempts) {
      const response = await call(demo.port, 'POST', '/api/v1/books/b1/reviews?stars=1', options);
      expect(response.status).toBe(400);
      expect(bodyOf(response)).toEqual(refused);
    }
    expect(demo.data.reviews.length).toBe(before);
  });

  it('lets a JSON POST, or one with the x-graphql-csrf header, through', async () => {
    const response = await call(demo.port, 'POST', '/api/v1/books/b1/reviews', { headers: { 'x-api-key': 'demo-editor' }, json: { stars: 5 } });
    expect(response.status).toBe(201);
    const marked = await call(demo.port, 'POST', '/api/v1/books/b1/reviews?stars=4', { headers: { 'x-api-key': 'demo-editor', 'x-graphql-csrf': '1' } });
    expect(marked.status).toBe(201);
  });
});

describe('WebSocket upgrades and Origin', () => {
  let listed: RealtimeServer;
  /** The defaults: CSRF prevention on, no CORS. */
  let sameOriginOnly: RealtimeServer;
  let unprotected: RealtimeServer;
  beforeAll(async () => {
    listed = await startRealtimeServer({ cors: { origins: ['https://app.example'] } });
    sameOriginOnly = await startRealtimeServer();
    unprotected = await startRealtimeServer({ csrfPrevention: false });
  });
  afterAll(async () => {
    await listed.close();
    await sameOriginOnly.close();
    await unprotected.close();
  });

  it('refuses an upgrade from an origin that is not listed with 403 ORIGIN_NOT_ALLOWED, before the handshake', async () => {
    for (const server of [listed, sameOriginOnly]) {
      const refusal = await upgradeRefusal(server.wsUrl, { headers: { origin: 'https://evil.example' } });
      expect(refusal).toEqual({
        status: 403,
        contentType: 'application/json; charset=utf-8',
        body: JSON.stringify(errorBody('ORIGIN_NOT_ALLOWED', 'Pages from https://evil.example may not open a WebSocket here.')),
      });
      expect(server.sockets()).toBe(0);
    }
  });

  it('lets a refused upgrade\'s socket go: a body it carries is read and dropped, a client that never hangs up is cut off, and shutdown() is not held', async () => {
    const server = await startRealtimeServer({ shutdownGraceMs: 100 });
    const clients: net.Socket[] = [];
    try {
      // An upgrade without the subprotocol that also sends 2 MB nobody reads as a request body.
      const withBody = net.connect(server.port, '127.0.0.1');
      const body = Buffer.alloc(2 * 1024 * 1024, 'a');
      withBody.write(`POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nContent-Length: ${body.length}\r\n\r\n`);
      withBody.write(body);
      // A refused upgrade whose client reads the answer and never closes its own side.
      const lingering = net.connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: true });
      lingering.write('GET /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n');
      clients.push(withBody, lingering);
      for (const answer of await Promise.all(clients.map(answerUntilEnd))) {
        expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
        expect(answer).toContain(JSON.stringify(errorBody('SUBPROTOCOL_NOT_ACCEPTABLE', 'WebSocket connections must use the graphql-transport-ws subprotocol.')));
      }
      // HTTP's close() waits for every socket the server accepted, upgraded ones included.
      const shutdown = await Promise.race([server.server.shutdown().then(() => 'resolved'), new Promise((resolve) => setTimeout(() => resolve('pending'), 4000))]);
      expect(shutdown).toBe('resolved');
    } finally {
      for (const client of clients) client.destroy();
      await server.close();
    }
  });

  it('answers a HEAD that asks to upgrade with the refusal\'s headers and no body (RFC 9110, 9.3.2)', async () => {
    const client = net.connect(sameOriginOnly.port, '127.0.0.1');
    client.write('HEAD /api/v1?genre=FICTION HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n');
    const body = JSON.stringify(errorBody('NOT_FOUND', 'Nothing is served at /api/v1; the GraphQL endpoint is /graphql.'));
    expect(await answerUntilEnd(client)).toBe(
      `HTTP/1.1 404 Not Found\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    );
    client.destroy();
  });

  it('lets in a listed origin, the server\'s own, and a client that sends no Origin', async () => {
    const cases: Array<[RealtimeServer, Record<string, string>]> = [
      [listed, { origin: 'https://app.example' }],
      [listed, { origin: 'HTTPS://APP.EXAMPLE' }],
      [sameOriginOnly, { origin: sameOriginOnly.origin }],
      [sameOriginOnly, {}],
      // csrfPrevention: false without CORS: no browser protection was asked for, any origin is let in.
      [unprotected, { origin: 'https://evil.example' }],
    ];
    for (const [server, headers] of cases) {
      const client = await RawClient.open(server.wsUrl, { headers });
      client.send({ type: 'connection_init' });
      expect(await client.next()).toEqual({ type: 'connection_ack' });
      client.socket.close();
      await client.closed;
    }
  });
});

describe('the variables subscriptions keep, per client', () => {
  let server: RealtimeServer;
  beforeAll(async () => {
    server = await startRealtimeServer({ maxSubscriptionBytesPerClient: 100_000 });
  });
  afterAll(() => server.close());
  const query = 'subscription Ticks($topic: String!) { ticks(topic: $topic) }';
  const topic = (letter: string) => letter.repeat(59_998);

  it('refuses a subscription past the budget over WebSocket and event streams alike, and takes it again once one ended', async () => {
    const client = await RawClient.open(server.wsUrl);
    await client.init();
    client.send({ id: 'a', type: 'subscribe', payload: { query, variables: { topic: topic('a'), unused: 'u'.repeat(200_000) } } });
    await expect.poll(() => server.subscribers(topic('a'))).toBe(1);
    const refusal = {
      errors: [
        {
          message:
            "This client's subscriptions keep as many characters of variables as one client may (100000); this one's would be 60000 more. End a subscription before starting another.",
          extensions: { code: 'SUBSCRIPTION_VARIABLES_LIMIT_EXCEEDED' },
        },
      ],
    };
    client.send({ id: 'b', type: 'subscribe', payload: { query, variables: { topic: topic('b') } } });
    expect(await client.next()).toEqual({ id: 'b', type: 'error', payload: refusal.errors });
    const overSse = await postJson(server.url, { query, variables: { topic: topic('c') } }, 'text/event-stream');
    expect(overSse.status).toBe(200);
    expect(overSse.text).toBe(`event: next\ndata: ${JSON.stringify(refusal)}\n\nevent: complete\ndata:\n\n`);

    client.send({ id: 'a', type: 'complete' });
    await expect.poll(() => server.subscribers(topic('a'))).toBe(0);
    client.send({ id: 'b', type: 'subscribe', payload: { query, variables: { topic: topic('b') } } });
    await expect.poll(() => server.subscribers(topic('b'))).toBe(1);
    client.socket.close();
    await client.closed;
    await expect.poll(() => server.subscribers(topic('b'))).toBe(0);
    // Everything given back: two fit again.
    const again = await RawClient.open(server.wsUrl);
    await again.init();
    again.send({ id: 'x', type: 'subscribe', payload: { query, variables: { topic: topic('x') } } });
    await expect.poll(() => server.subscribers(topic('x'))).toBe(1);
    again.socket.close();
    await again.closed;
  });
});

describe('a ping too deep to echo', () => {
  let server: RealtimeServer;
  beforeAll(async () => {
    server = await startRealtimeServer({});
  });
  afterAll(() => server.close());

  it('closes the one connection with 4400, answers a shallow ping, and keeps serving', async () => {
    const deep = `{"type":"ping","payload":${'{"a":'.repeat(20_000)}0${'}'.repeat(20_000)}}`;
    const client = await RawClient.open(server.wsUrl);
    client.send(deep);
    expect(await client.closed).toEqual({ code: 4400, reason: 'Invalid message received: the ping payload nests too deeply to echo' });
    await expect.poll(() => server.sockets()).toBe(0);

    const other = await RawClient.open(server.wsUrl);
    other.send({ type: 'ping', payload: { a: { b: [1] } } });
    expect(await other.next()).toEqual({ type: 'pong', payload: { a: { b: [1] } } });
    other.socket.close();
    await other.closed;
  });
});

describe('connections per client', () => {
  let server: RealtimeServer;
  beforeAll(async () => {
    server = await startRealtimeServer({ websocket: { maxConnectionsPerClient: 2 }, maxEventStreamsPerClient: 1 });
  });
  afterAll(() => server.close());

  it('refuses a client its third WebSocket with 429 TOO_MANY_CONNECTIONS, and takes it again once one closed', async () => {
    const first = await RawClient.open(server.wsUrl);
    const second = await RawClient.open(server.wsUrl);
    const refusal = await upgradeRefusal(server.wsUrl);
    expect(refusal).toEqual({
      status: 429,
      contentType: 'application/json; charset=utf-8',
      body: JSON.stringify(errorBody('TOO_MANY_CONNECTIONS', 'This client has 2 WebSocket connections open already.')),
    });
    first.socket.close();
    await first.closed;
    await expect.poll(() => server.sockets()).toBe(1);
    const third = await RawClient.open(server.wsUrl);
    third.socket.close();
    second.socket.close();
    await Promise.all([third.closed, second.closed]);
  });

  it('refuses a client a second subscription over event streams with 429 TOO_MANY_CONNECTIONS, and takes one again once it ended', async () => {
    const subscription = { query: 'subscription { ticks(topic: "capped") }' };
    const first = await openEventStream(server.url, subscription);
    await expect.poll(() => server.subscribers('capped')).toBe(1);
    const second = await postJson(server.url, subscription, 'text/event-stream');
    expect(second.status).toBe(429);
    expect(second.headers['retry-after']).toBe('5');
    expect(json(second)).toEqual(errorBody('TOO_MANY_CONNECTIONS', 'This client has 1 event streams open already.'));
    // The refused subscription was ended at its source: only the first one remains.
    expect(server.subscribers('capped')).toBe(1);
    first.abort();
    await expect.poll(() => server.subscribers('capped')).toBe(0);
    const again = await openEventStream(server.url, subscription);
    expect(again.response.status).toBe(200);
    again.abort();
  });

  it('gives the slot back when a stream is read to its end without a server (createHandler)', async () => {
    const slots: string[] = [];
    const stream = new EventStream({ data: { one: 1 } }, 1000, () => new Error('unused') as never, () => slots.push('released'));
    while ((await stream.next()) !== null);
    expect(slots).toEqual(['released']);
  });
});

describe('refusals are charged to the rate limits', () => {
  let demo: DemoResourceServer;
  beforeAll(async () => {
    demo = await startDemoResources({ extra: { rateLimit: { requests: { limit: 3, windowSeconds: 60 } } } });
  });
  afterAll(() => demo.close());

  it('answers a flood of bad credentials with 401 while the address has budget, then 429 with Retry-After', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await call(demo.port, 'POST', '/graphql', { headers: { 'x-api-key': 'not-a-key' }, json: { query: '{ __typename }' } });
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    }
    expect(statuses).toEqual([401, 401, 401, 429, 429]);
  });
});

describe('every refusal before an operation runs is charged as well', () => {
  let demo: DemoResourceServer;
  beforeEach(async () => {
    demo = await startDemoResources({ extra: { rateLimit: { requests: { limit: 2, windowSeconds: 60 } } } });
  });
  afterEach(() => demo.close());

  const JSON_POST = { 'content-type': 'application/json' };
  it.each<[string, string, string, CallOptions, number, string]>([
    ['a cross-site text POST to /graphql (CSRF prevention)', 'POST', '/graphql', { headers: { 'content-type': 'text/plain' }, body: '{"query":"{ __typename }"}' }, 400, 'CSRF_PREVENTED'],
    ['a cross-site form POST to a resource route (CSRF prevention)', 'POST', '/api/v1/books/b1/reviews?stars=1', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'stars=1' }, 400, 'CSRF_PREVENTED'],
    ['a path that serves nothing', 'GET', '/nothing-here', {}, 404, 'NOT_FOUND'],
    ['a method /graphql does not take', 'DELETE', '/graphql', {}, 405, 'METHOD_NOT_ALLOWED'],
    ['an Accept /graphql cannot answer', 'POST', '/graphql', { headers: { ...JSON_POST, accept: 'text/html' }, body: '{"query":"{ __typename }"}' }, 406, 'NOT_ACCEPTABLE'],
    ['a Content-Type /graphql does not read', 'POST', '/graphql', { headers: { 'content-type': 'application/xml' }, body: '<query/>' }, 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['a body that is not JSON', 'POST', '/graphql', { headers: JSON_POST, body: '{"query":' }, 400, 'BAD_REQUEST'],
    ['a resource route that does not exist', 'GET', '/api/v1/nothings', {}, 404, 'NOT_FOUND'],
    ['a resource route sent a body that is not JSON', 'POST', '/api/v1/books/b1/reviews', { headers: JSON_POST, body: '{"stars":' }, 400, 'BAD_REQUEST'],
  ])('%s: refused while the address has budget, then 429', async (_name, method, path, options, status, code) => {
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await call(demo.port, method, path, options));
    expect(answers.map((answer) => answer.status)).toEqual([status, status, 429]);
    const first = bodyOf(answers[0] as CallResponse) as { error?: { code: string }; errors?: Array<{ extensions: { code: string } }> };
    expect(first.error?.code ?? first.errors?.[0]?.extensions.code).toBe(code);
    expect(bodyOf(answers[2] as CallResponse)).toEqual(errorBody('RATE_LIMITED', 'Rate limit exceeded: try again in 30 seconds.'));
    expect((answers[2] as CallResponse).headers['retry-after']).toBe('30');
  });
});

describe('a refused credential in connection_init is charged as well', () => {
  let demo: DemoResourceServer;
  beforeAll(async () => {
    demo = await startDemoResources({ extra: { rateLimit: { requests: { limit: 3, windowSeconds: 60 } } } });
  });
  afterAll(() => demo.close());

  it('closes with 4403 and the reason while the address has budget, then with 4403 saying it is spent', async () => {
    const reasons: string[] = [];
    for (let i = 0; i < 4; i++) {
      const client = await RawClient.open(`ws://127.0.0.1:${demo.port}/graphql`);
      client.send({ type: 'connection_init', payload: { 'x-api-key': 'not-a-key' } });
      const closed = await client.closed;
      expect(closed.code).toBe(4403);
      reasons.push(closed.reason.replace(/\d+ seconds/, 'N seconds'));
    }
    expect(reasons).toEqual([
      'Forbidden: The API key is not valid.',
      'Forbidden: The API key is not valid.',
      'Forbidden: The API key is not valid.',
      'Forbidden: Rate limit exceeded: try again in N seconds.',
    ]);
  });
});

/** The requests left, as the RateLimit header reports them. */
function requestsLeft(response: CallResponse): number | undefined {
  return rateLimitItems(response).find((item) => item.name === 'requests')?.r;
}

/** 63 same-named fields with sub-selections: 1,953 pairs for the overlapping-fields rule, nine requests more. */
const costliest = (name: string) => `query ${name} { ${'me { id kind roles scopes } '.repeat(63)}}`;

/** What `me` answers an anonymous caller, as the costliest document asks for it. */
const ANONYMOUS_ME = { data: { me: { id: 'anonymous', kind: 'anonymous', roles: [], scopes: [] } } };

/** A query posted to the demo's GraphQL endpoint. */
const postQuery = (port: number, query: string) => call(port, 'POST', '/graphql', { json: { query } });

/** A 429 from the GraphQL endpoint, whatever the wait. */
const RATE_LIMITED_BODY = errorBody('RATE_LIMITED', expect.stringMatching(/^Rate limit exceeded: try again in \d+ seconds?\.$/));

describe('the work a large request brings is charged', () => {
  let demo: DemoResourceServer;
  beforeAll(async () => {
    demo = await startDemoResources({ extra: { rateLimit: { requests: { limit: 20, windowSeconds: 60 } } } });
  });
  afterAll(() => demo.close());

  it('counts a new 30,000-character document as four requests, and as one once it is in the cache', async () => {
    // A comment makes it long without making it a larger operation.
    const query = `{ __typename } # ${'x'.repeat(30_000 - 17)}`;
    expect(query.length).toBe(30_000);
    const remaining = async () => {
      const response = await call(demo.port, 'POST', '/graphql', { json: { query } });
      expect(response.status).toBe(200);
      return requestsLeft(response);
    };
    expect(await remaining()).toBe(16);
    expect(await remaining()).toBe(15);
  });

  it('counts a known document with 25,000 characters of variables as three requests, each time it is sent', async () => {
    const big = 'v'.repeat(25_000);
    const remaining = async () => {
      const response = await call(demo.port, 'POST', '/graphql', { json: { query: 'query Big($s: ID!) { book(id: $s) { id } }', variables: { s: big } } });
      expect(bodyOf(response)).toEqual({ data: { book: null }, extensions: { cost: { requested: 1, actual: 1, limit: 1000 } } });
      return requestsLeft(response);
    };
    // 15 left by the test before.
    expect([await remaining(), await remaining(), await remaining()]).toEqual([12, 9, 6]);
  });

  it('counts a GET whose URL holds 25,000 characters of variables as three requests', async () => {
    const variables = encodeURIComponent(JSON.stringify({ s: 'v'.repeat(25_000) }));
    const query = encodeURIComponent('query Big($s: ID!) { book(id: $s) { id } }');
    const response = await call(demo.port, 'GET', `/graphql?query=${query}&variables=${variables}`, { headers: { 'x-api-key': 'demo-reader', 'x-graphql-csrf': '1' } });
    expect(bodyOf(response)).toEqual({ data: { book: null }, extensions: { cost: { requested: 1, actual: 1, limit: 1000 } } });
    // The reader's own budget: 20, less three.
    expect(requestsLeft(response)).toBe(17);
  });

  it("counts a resource route's body of 25,000 characters as three requests", async () => {
    const text = 't'.repeat(25_000);
    const patch = () => call(demo.port, 'PATCH', '/api/v1/reviews/r1', { headers: { 'x-api-key': 'demo-editor' }, json: { text } });
    const first = await patch();
    expect(first.status).toBe(200);
    expect(bodyOf(first)).toEqual({ data: { id: 'r1', bookId: 'b3', stars: 5, text } });
    // The editor's own budget: 20, less three.
    expect(requestsLeft(first)).toBe(17);
    expect(requestsLeft(await patch())).toBe(14);
  });
});

describe('the work of validating a document is charged before it is done', () => {
  let demo: DemoResourceServer;
  beforeAll(async () => {
    demo = await startDemoResources({ extra: { rateLimit: { requests: { limit: 25, windowSeconds: 60 } } } });
  });
  afterAll(() => demo.close());

  const send = (query: string) => postQuery(demo.port, query);

  it('counts a new document the overlapping-fields rule compares 1,953 pairs in as ten requests, refused when the budget cannot pay, and as one once it is kept', async () => {
    const first = await send(costliest('A'));
    expect(first.status).toBe(200);
    expect(bodyOf(first)).toEqual({ ...ANONYMOUS_ME, extensions: { cost: { requested: 1, actual: 1, limit: 1000 } } });
    // One for the request, nine for its validation.
    expect(requestsLeft(first)).toBe(15);
    expect(requestsLeft(await send(costliest('A')))).toBe(14);
    const second = await send(costliest('B'));
    expect(requestsLeft(second)).toBe(4);
    const third = await send(costliest('C'));
    expect(third.status).toBe(429);
    expect(bodyOf(third)).toEqual(RATE_LIMITED_BODY);
    // Kept: one request, however costly it was to validate.
    expect(requestsLeft(await send(costliest('A')))).toBe(2);
  });
});

describe('the work of validating a document is charged under a cost budget too', () => {
  let demo: DemoResourceServer;
  beforeAll(async () => {
    demo = await startDemoResources({ extra: { rateLimit: { requests: { limit: 25, windowSeconds: 60 }, cost: { limit: 1000, windowSeconds: 3600 } } } });
  });
  afterAll(() => demo.close());

  it('charges the validation to the requests budget alone, before the request and its cost are charged together', async () => {
    const send = (query: string) => postQuery(demo.port, query);
    const first = await send(costliest('A'));
    expect(first.status).toBe(200);
    expect(bodyOf(first)).toMatchObject(ANONYMOUS_ME);
    // Nine for the validation, then one for the request; of the cost budget, only the query's actual cost (1).
    expect(rateLimitItems(first).map(({ name, r }) => [name, r])).toEqual([
      ['requests', 15],
      ['cost', 999],
    ]);
    expect(requestsLeft(await send(costliest('B')))).toBe(5);
    const refused = await send(costliest('C'));
    expect(refused.status).toBe(429);
    expect(bodyOf(refused)).toEqual(RATE_LIMITED_BODY);
    // Refused before validation, nothing charged: the five are left for a kept document.
    expect(requestsLeft(await send(costliest('A')))).toBe(4);
  });
});

describe('a WebSocket message is charged by its size', () => {
  let demo: DemoResourceServer;
  beforeAll(async () => {
    demo = await startDemoResources({ extra: { rateLimit: { requests: { limit: 20, windowSeconds: 60 } } } });
  });
  afterAll(() => demo.close());

  it('counts a subscribe message of 25,000 characters as three requests: the seventh is refused', async () => {
    const client = await RawClient.open(`ws://127.0.0.1:${demo.port}/graphql`);
    client.send({ type: 'connection_init' });
    expect((await client.next()).type).toBe('connection_ack');
    const big = 'v'.repeat(25_000);
    const answers: unknown[] = [];
    for (let i = 0; i < 7; i++) {
      client.send({ id: `q${i}`, type: 'subscribe', payload: { query: 'query Big($s: ID!) { book(id: $s) { id } }', variables: { s: big } } });
      const answer = await client.next();
      answers.push(answer);
      if (answer.type === 'next') expect(await client.next()).toEqual({ id: `q${i}`, type: 'complete' });
    }
    expect(answers).toEqual([
      ...Array.from({ length: 6 }, (_, i) => ({ id: `q${i}`, type: 'next', payload: { data: { book: null }, extensions: { cost: { requested: 1, actual: 1, limit: 1000 } } } })),
      { id: 'q6', type: 'error', payload: [{ message: 'Rate limit exceeded: try again in 3 seconds.', extensions: { retryAfter: 3, code: 'RATE_LIMITED' } }] },
    ]);
    client.close();
  });
});

describe('a failed If-Match is charged as the read it ran', () => {
  let demo: DemoResourceServer;
  beforeAll(async () => {
    demo = await startDemoResources({ extra: { rateLimit: { requests: { limit: 2, windowSeconds: 60 } } } });
  });
  afterAll(() => demo.close());

  it('answers 412 while the caller has budget, then 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await call(demo.port, 'PATCH', '/api/v1/reviews/r1', { headers: { 'x-api-key': 'demo-editor', 'if-match': '"stale"' }, json: { stars: 2 } });
      statuses.push(response.status);
    }
    expect(statuses).toEqual([412, 412, 429]);
  });
});

/** What a raw socket read until the server's end of the connection (its FIN); fails after 5 s. */
function answerUntilEnd(socket: net.Socket): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const deadline = setTimeout(() => reject(new Error(`The server had not ended the connection 5 s later, having sent: ${Buffer.concat(chunks).toString('latin1').slice(0, 200)}`)), 5000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.once('end', () => {
      clearTimeout(deadline);
      resolve(Buffer.concat(chunks).toString('latin1'));
    });
  });
}
