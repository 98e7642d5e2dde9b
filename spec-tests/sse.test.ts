/**
 * GraphQL over Server-Sent Events, graphql-sse's distinct connections mode (graphql-sse's
 * PROTOCOL.md): one `text/event-stream` response per operation, chosen by
 * `Accept: text/event-stream`, carrying `next` events and one `complete` event.
 *
 * First the real client, graphql-sse's `createClient` with `singleConnection: false`. Then raw
 * fetch, to check the exact headers and bytes: the event text, the heartbeat comments, what
 * is refused before any stream starts (405, 400, 401 as JSON), and that a stream's subscription
 * ends at its source when the client goes away or the server shuts down.
 */
import { createClient, NetworkError } from 'graphql-sse';
import type { Client, ExecutionResult, RequestParams } from 'graphql-sse';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { apiKeyAuth, hashApiKey } from '../src/index.ts';
import type { LogEntry } from '../src/index.ts';
import { jsonSyntaxMessage } from './support/httpServer.ts';
import { FEED_FAILURE, headersOf, openEventStream, startRealtimeServer, within } from './support/realtime.ts';
import { byMajor } from './support/graphqlMajor.ts';
import type { OpenedStream, RealtimeServer, RealtimeServerOptions } from './support/realtime.ts';

/** A server for this test only, closed when it finishes. */
async function serve(options: RealtimeServerOptions = {}): Promise<RealtimeServer> {
  const server = await startRealtimeServer(options);
  onTestFinished(() => server.close());
  return server;
}

/** An event stream for this test only, aborted when it finishes. */
async function stream(server: RealtimeServer, body: unknown, headers: Record<string, string> = {}): Promise<OpenedStream> {
  const opened = await openEventStream(server.url, body, headers);
  onTestFinished(() => opened.abort());
  return opened;
}

function eventually(assertion: () => void, timeout = 1000): Promise<void> {
  return vi.waitFor(assertion, { timeout, interval: 5 });
}

/** The text of a `next` event carrying result. */
function next(result: unknown): string {
  return `event: next\ndata: ${JSON.stringify(result)}\n\n`;
}

const COMPLETE = 'event: complete\ndata:\n\n';
const EVENT_STREAM_HEADERS = { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };
const TICKS = (topic: string) => ({ query: 'subscription ($topic: String!) { ticks(topic: $topic) }', variables: { topic } });

// ---------------------------------------------------------------------------------------------
// The graphql-sse client
// ---------------------------------------------------------------------------------------------

interface Delivery {
  readonly results: ExecutionResult<Record<string, unknown>, unknown>[];
  readonly ended: Promise<{ completed: true } | { error: unknown }>;
  unsubscribe(): void;
}

function deliver(client: Client, request: RequestParams): Delivery {
  const results: ExecutionResult<Record<string, unknown>, unknown>[] = [];
  let unsubscribe: () => void = () => undefined;
  const ended = new Promise<{ completed: true } | { error: unknown }>((resolve) => {
    unsubscribe = client.subscribe(request, {
      next: (result) => results.push(result),
      error: (error) => resolve({ error }),
      complete: () => resolve({ completed: true }),
    });
  });
  return { results, ended: within(ended, 2000, 'the operation to end'), unsubscribe };
}

function sseClient(server: RealtimeServer, headers: Record<string, string> = {}): Client {
  const client = createClient({ url: server.url, singleConnection: false, retryAttempts: 0, headers });
  onTestFinished(() => client.dispose());
  return client;
}

describe('the graphql-sse client in distinct connections mode', () => {
  it("receives a subscription's events, then completes when its source ends", async () => {
    const server = await serve();
    const delivery = deliver(sseClient(server), { query: 'subscription { countdown(from: 3) }' });
    expect(await delivery.ended).toEqual({ completed: true });
    expect(delivery.results).toEqual([{ data: { countdown: 3 } }, { data: { countdown: 2 } }, { data: { countdown: 1 } }]);
  });

  it('receives the events published after the server subscribed, and unsubscribing ends the subscription at the source', async () => {
    const server = await serve();
    const delivery = deliver(sseClient(server), TICKS('client'));
    await eventually(() => expect(server.subscribers('client')).toBe(1));
    await server.pubsub.publish('client', 1);
    await server.pubsub.publish('client', 2);
    await eventually(() => expect(delivery.results).toEqual([{ data: { ticks: 1 } }, { data: { ticks: 2 } }]));
    delivery.unsubscribe();
    await eventually(() => expect(server.subscribers('client')).toBe(0));
    expect(await delivery.ended).toEqual({ completed: true });
  });

  it('gets one result for a query, then completes', async () => {
    const server = await serve();
    const delivery = deliver(sseClient(server), { query: '{ hello(name: "SSE") }' });
    expect(await delivery.ended).toEqual({ completed: true });
    expect(delivery.results).toEqual([{ data: { hello: 'Hello, SSE!' } }]);
  });

  it('gets a validation error as a result with errors (a next event), then completes: the error callback is not called', async () => {
    const server = await serve();
    const delivery = deliver(sseClient(server), { query: 'subscription { ticks }' });
    expect(await delivery.ended).toEqual({ completed: true });
    expect(delivery.results).toEqual([
      {
        errors: [
          {
            message: byMajor({
              16: 'Field "ticks" argument "topic" of type "String!" is required, but it was not provided.',
              17: 'Argument "Subscription.ticks(topic:)" of type "String!" is required, but it was not provided.',
            }),
            locations: [{ line: 1, column: 16 }],
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          },
        ],
      },
    ]);
  });

  it('sees a subscription complete, not fail, when the server shuts down', async () => {
    const server = await serve();
    const delivery = deliver(sseClient(server), TICKS('client-shutdown'));
    await eventually(() => expect(server.subscribers('client-shutdown')).toBe(1));
    await server.pubsub.publish('client-shutdown', 1);
    await eventually(() => expect(delivery.results).toHaveLength(1));
    const done = server.server.shutdown();
    expect(await delivery.ended).toEqual({ completed: true });
    await within(done, 2000, 'shutdown() to resolve');
  });

  it('gets a refused credential as a NetworkError carrying the 401 response', async () => {
    const server = await serve({ authenticate: [apiKeyAuth({ keys: [{ id: 'k', hash: hashApiKey('right-key') }] })] });
    const delivery = deliver(sseClient(server, { 'x-api-key': 'wrong-key' }), { query: '{ hello }' });
    const ended = await delivery.ended;
    expect('error' in ended && ended.error).toBeInstanceOf(NetworkError);
    const { response } = (ended as { error: NetworkError<Response> }).error;
    expect(response?.status).toBe(401);
    expect(await response?.json()).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'The API key is not valid.' } });
    expect(delivery.results).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Raw fetch
// ---------------------------------------------------------------------------------------------

describe('the event stream', () => {
  it('answers 200 with text/event-stream, no-cache and X-Accel-Buffering: no, and no Content-Length', async () => {
    const server = await serve();
    const { response, reader } = await stream(server, TICKS('headers'));
    expect(response.status).toBe(200);
    expect(headersOf(response)).toMatchObject(EVENT_STREAM_HEADERS);
    expect(response.headers.get('content-length')).toBeNull();
    expect(reader.text).toBe('');
  });

  it('sends the headers before the first event, so that a client knows at once the subscription started', async () => {
    const server = await serve();
    const { reader } = await stream(server, TICKS('early-headers'));
    await eventually(() => expect(server.subscribers('early-headers')).toBe(1));
    expect(reader.text).toBe('');
  });

  it('carries a query as one next event with its result, then complete with an empty data line', async () => {
    const server = await serve();
    const { reader } = await stream(server, { query: '{ hello }' });
    expect(await reader.rest()).toEqual([
      { event: 'next', data: '{"data":{"hello":"Hello, world!"}}' },
      { event: 'complete', data: '' },
    ]);
    expect(reader.text).toBe(next({ data: { hello: 'Hello, world!' } }) + COMPLETE);
  });

  it('carries each event of a subscription as a next event, and complete once its source ends', async () => {
    const server = await serve();
    const { reader } = await stream(server, { query: 'subscription { countdown(from: 2) }' });
    await reader.rest();
    expect(reader.text).toBe(next({ data: { countdown: 2 } }) + next({ data: { countdown: 1 } }) + COMPLETE);
  });

  it('writes each published event as it comes', async () => {
    const server = await serve();
    const { reader } = await stream(server, TICKS('live'));
    await eventually(() => expect(server.subscribers('live')).toBe(1));
    await server.pubsub.publish('live', 10);
    expect(await reader.next()).toEqual({ event: 'next', data: '{"data":{"ticks":10}}' });
    await server.pubsub.publish('live', 11);
    expect(await reader.next()).toEqual({ event: 'next', data: '{"data":{"ticks":11}}' });
    expect(reader.text).toBe(next({ data: { ticks: 10 } }) + next({ data: { ticks: 11 } }));
  });

  it('keeps a result with a line break on one data line', async () => {
    const server = await serve();
    const { reader } = await stream(server, { query: 'query ($name: String) { hello(name: $name) }', variables: { name: 'two\nlines' } });
    await reader.rest();
    expect(reader.text).toBe('event: next\ndata: {"data":{"hello":"Hello, two\\nlines!"}}\n\n' + COMPLETE);
  });

  it('reports a validation error inside the accepted stream: 200, one next event with the errors, then complete', async () => {
    const server = await serve();
    const { response, reader } = await stream(server, { query: '{ nope }' });
    expect(response.status).toBe(200);
    await reader.rest();
    expect(reader.text).toBe(
      next({ errors: [{ message: 'Cannot query field "nope" on type "Query".', locations: [{ line: 1, column: 3 }], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }] }) +
        COMPLETE,
    );
  });

  it('ends a subscription that fell more than bufferSize events behind with the SUBSCRIPTION_OVERFLOW error as its last next event, then complete', async () => {
    const server = await serve({ bufferSize: 2 });
    const { reader } = await stream(server, TICKS('flood'));
    await eventually(() => expect(server.subscribers('flood')).toBe(1));
    for (let value = 1; value <= 10; value++) void server.pubsub.publish('flood', value);
    expect(server.subscribers('flood')).toBe(0);
    await reader.rest();
    expect(reader.text).toBe(
      next({ data: { ticks: 1 } }) +
        next({ data: { ticks: 2 } }) +
        next({ data: { ticks: 3 } }) +
        next({ errors: [{ message: 'The subscriber fell more than 2 events behind and was closed.', extensions: { code: 'SUBSCRIPTION_OVERFLOW' } }] }) +
        COMPLETE,
    );
  });

  it("ends a subscription whose source throws with streamError's error as its last next event, then complete, and logs the fault", async () => {
    const log: LogEntry[] = [];
    const server = await serve({ log: (entry) => log.push(entry) });
    const { reader } = await stream(server, { query: 'subscription { failing }' });
    const items = await reader.rest();
    expect(items.map((item) => ('event' in item ? item.event : 'comment'))).toEqual(['next', 'next', 'complete']);
    expect(JSON.parse((items[1] as { data: string }).data)).toEqual({
      errors: [{ message: FEED_FAILURE, extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: expect.any(String) } }],
    });
    expect(log.map(({ level, message }) => ({ level, message }))).toEqual([{ level: 'error', message: 'A subscription stream failed.' }]);
  });

  it('sends a ":" comment every sseHeartbeatMs while no event is published', async () => {
    const server = await serve({ sseHeartbeatMs: 50 });
    const { reader } = await stream(server, TICKS('quiet'));
    expect(await reader.next(1000)).toEqual({ comment: '' });
    expect(await reader.next(1000)).toEqual({ comment: '' });
    expect(reader.text).toBe(':\n\n:\n\n');
    await server.pubsub.publish('quiet', 1);
    let item = await reader.next(1000);
    while (item !== null && 'comment' in item) item = await reader.next(1000);
    expect(item).toEqual({ event: 'next', data: '{"data":{"ticks":1}}' });
  });

  it('closes the subscription at its source when the client aborts the fetch', async () => {
    const server = await serve();
    const opened = await stream(server, TICKS('aborted'));
    await eventually(() => expect(server.subscribers('aborted')).toBe(1));
    opened.abort();
    await eventually(() => expect(server.subscribers('aborted')).toBe(0), 500);
  });

  it('closes each subscription at its source when many clients abort their fetches', async () => {
    const server = await serve();
    const opened = await Promise.all(Array.from({ length: 20 }, () => stream(server, TICKS('crowd'))));
    await eventually(() => expect(server.subscribers('crowd')).toBe(20));
    for (const each of opened) each.abort();
    await eventually(() => expect(server.subscribers('crowd')).toBe(0));
  });

  it('completes every open event stream on server.shutdown(), ends its subscription, and resolves', async () => {
    const server = await serve();
    const { reader } = await stream(server, TICKS('closing'));
    await eventually(() => expect(server.subscribers('closing')).toBe(1));
    await server.pubsub.publish('closing', 1);
    expect(await reader.next()).toEqual({ event: 'next', data: '{"data":{"ticks":1}}' });
    const done = server.server.shutdown();
    expect(await reader.rest()).toEqual([{ event: 'complete', data: '' }]);
    await within(done, 2000, 'shutdown() to resolve');
    expect(server.subscribers('closing')).toBe(0);
  });
});

describe('choosing Server-Sent Events', () => {
  it('streams a query sent with GET and its parameters in the query string', async () => {
    const server = await serve();
    const url = `${server.url}?query=${encodeURIComponent('query ($name: String) { hello(name: $name) }')}&variables=${encodeURIComponent('{"name":"GET"}')}`;
    // With the header CSRF prevention (on by default) asks of a GET.
    const response = await fetch(url, { headers: { accept: 'text/event-stream', 'x-graphql-csrf': '1' } });
    expect(response.status).toBe(200);
    expect(headersOf(response)).toMatchObject(EVENT_STREAM_HEADERS);
    expect(await response.text()).toBe(next({ data: { hello: 'Hello, GET!' } }) + COMPLETE);
  });

  it("streams a subscription sent with GET, the only method a browser's EventSource has: under csrfPrevention: false, as EventSource sets no header", async () => {
    const url = (server: RealtimeServer) => `${server.url}?query=${encodeURIComponent('subscription { countdown(from: 2) }')}`;
    // By default, what EventSource sends is what a page of any site could send: refused, no stream.
    const refused = await fetch(url(await serve()), { headers: { accept: 'text/event-stream' } });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('CSRF_PREVENTED');
    const server = await serve({ csrfPrevention: false });
    const response = await fetch(url(server), { headers: { accept: 'text/event-stream' } });
    expect(response.status).toBe(200);
    expect(headersOf(response)).toMatchObject(EVENT_STREAM_HEADERS);
    expect(await response.text()).toBe(next({ data: { countdown: 2 } }) + next({ data: { countdown: 1 } }) + COMPLETE);
  });

  it('refuses a mutation sent with GET with 405 and Allow: POST, as JSON, before any stream', async () => {
    const server = await serve();
    const response = await fetch(`${server.url}?query=${encodeURIComponent('mutation { publish(topic: "t", value: 1) }')}`, {
      headers: { accept: 'text/event-stream', 'x-graphql-csrf': '1' },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ error: { code: 'METHOD_NOT_ALLOWED', message: 'A mutation cannot be sent with GET; use POST.' } });
  });

  it('refuses a batch with 400 and a JSON body saying why', async () => {
    const server = await serve();
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify([{ query: '{ hello }' }, { query: '{ hello }' }]),
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({
      errors: [{ message: 'A batch cannot be sent as Server-Sent Events; send one operation per request.', extensions: { code: 'BAD_REQUEST' } }],
    });
  });

  it('refuses a body that is not JSON with 400 and a JSON body saying why', async () => {
    const server = await serve();
    const text = '{"query": "{ hello }"';
    const response = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: text });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toEqual({ errors: [{ message: `The request body is not valid JSON: ${jsonSyntaxMessage(text)}`, extensions: { code: 'BAD_REQUEST' } }] });
  });

  it('answers JSON, not events, when application/json is listed before text/event-stream', async () => {
    const server = await serve();
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ query: '{ hello }' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.text()).toBe('{"data":{"hello":"Hello, world!"}}');
  });

  it('answers events when text/event-stream is listed before application/json', async () => {
    const server = await serve();
    const { response, reader } = await stream(server, { query: '{ hello }' }, { accept: 'text/event-stream, application/json' });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    await reader.rest();
    expect(reader.text).toBe(next({ data: { hello: 'Hello, world!' } }) + COMPLETE);
  });

  it('refuses a subscription without text/event-stream in Accept with SUBSCRIPTION_NOT_SUPPORTED', async () => {
    const server = await serve();
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(TICKS('json')),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      errors: [
        {
          message:
            'A subscription needs a transport that streams results: a WebSocket (graphql-transport-ws) or Server-Sent Events (Accept: text/event-stream).',
          extensions: { code: 'SUBSCRIPTION_NOT_SUPPORTED' },
        },
      ],
    });
    expect(server.subscribers('json')).toBe(0);
  });
});

describe('authentication before the stream', () => {
  const KEY = 'sk_live_sse_3c5e7a9b1d2f4680ace2';
  const serveWithKey = () => serve({ authenticate: [apiKeyAuth({ keys: [{ id: 'sse-key', hash: hashApiKey(KEY) }] })], requireAuthentication: true });

  it('refuses a request without a credential with 401 JSON and a challenge, and subscribes to nothing', async () => {
    const server = await serveWithKey();
    const response = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, body: JSON.stringify(TICKS('guarded')) });
    expect(response.status).toBe(401);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('www-authenticate')).toBe('ApiKey realm="graphql"');
    expect(await response.json()).toEqual({
      error: { code: 'UNAUTHENTICATED', message: 'This server requires authentication; send an API key (X-API-Key: <key> or Authorization: ApiKey <key>).' },
    });
    expect(server.subscribers('guarded')).toBe(0);
  });

  it('refuses a key that is not valid with 401 JSON and an invalid_token challenge', async () => {
    const server = await serveWithKey();
    const response = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-api-key': 'not-the-key' },
      body: JSON.stringify(TICKS('guarded')),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('ApiKey realm="graphql", error="invalid_token", error_description="The API key is not valid."');
    expect(await response.json()).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'The API key is not valid.' } });
  });

  it('streams once the key is valid', async () => {
    const server = await serveWithKey();
    const { response, reader } = await stream(server, TICKS('guarded'), { 'x-api-key': KEY });
    expect(response.status).toBe(200);
    await eventually(() => expect(server.subscribers('guarded')).toBe(1));
    await server.pubsub.publish('guarded', 3);
    expect(await reader.next()).toEqual({ event: 'next', data: '{"data":{"ticks":3}}' });
  });
});
