/**
 * Incremental delivery (`@defer`, `@stream`) on every transport, through the one operation
 * pipeline (server/incrementalDelivery.ts):
 *
 *  - HTTP: multipart/mixed (boundary `-`, a part per payload, the close delimiter after the
 *    last), the exact bytes of a deferred and a streamed query on the demo's fields in both
 *    formats, chosen by Accept (incrementalSpec=v0.2, deferSpec=20220824, bare); POST and GET;
 *    each part written as soon as it is ready; 406 INCREMENTAL_DELIVERY_NOT_ACCEPTABLE without a
 *    multipart Accept (and a batch item refused in its place), unless nothing can defer given
 *    the variables; CORS and RateLimit headers; masking in production inside deferred parts;
 *  - the client going away, the timeout, and a WebSocket `complete`: the resolver's signal
 *    aborts, a streamed source is closed, nothing is left running;
 *  - Server-Sent Events and the WebSocket: a `next` per payload, then `complete`;
 *  - resource routes that defer or stream: refused when the routes are made.
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { createServer, makeSchema } from '../src/index.ts';
import type { GraphQLServer, ServerOptions } from '../src/index.ts';
import { createDemoContext, createDemoData, demoSchema } from '../src/demo/librarySchema.ts';
import { closeNow, listenOnLoopback } from './support/httpServer.ts';
import { RawClient } from './support/realtime.ts';

const CURRENT = 'multipart/mixed; incrementalSpec=v0.2';
const LEGACY = 'multipart/mixed; deferSpec=20220824';
const MULTIPART_HEADERS = { 'content-type': 'multipart/mixed; boundary="-"', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' };

const DEFERRED = '{ books(limit: 2, sort: TITLE) { items { title ... @defer(label: "more") { author { name } reviews { stars } } } } }';
const STREAMED = '{ books(limit: 3, sort: TITLE) { items @stream(initialCount: 1) { title } } }';

/** The multipart body of these payloads, as the RFC writes it: a part each, the close delimiter after the last. */
function multipart(...payloads: unknown[]): string {
  return '\r\n---' + payloads.map((payload) => `\r\nContent-Type: application/json; charset=utf-8\r\n\r\n${JSON.stringify(payload)}\r\n---`).join('') + '--\r\n';
}

async function serve(options: Partial<ServerOptions> & Pick<ServerOptions, 'schema'>): Promise<{ server: GraphQLServer; url: string }> {
  const server = createServer({ log: () => undefined, graphiql: false, ...options });
  const port = await listenOnLoopback(server);
  return { server, url: `http://127.0.0.1:${port}/graphql` };
}

function post(url: string, query: string, accept: string | null, extra: Record<string, string> = {}, variables?: Record<string, unknown>): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
  if (accept !== null) headers['accept'] = accept;
  return fetch(url, { method: 'POST', headers, body: JSON.stringify(variables === undefined ? { query } : { query, variables }) });
}

function headersOf(response: Response, names: ReadonlyArray<string>): Record<string, string | null> {
  return Object.fromEntries(names.map((name) => [name, response.headers.get(name)]));
}

// ---------------------------------------------------------------------------------------------
// A schema whose deferred parts the tests hold, fail and watch
// ---------------------------------------------------------------------------------------------

/** What the controlled schema's resolvers saw, and the gate its `slow` field waits at. */
class Controls {
  readonly signals: AbortSignal[] = [];
  /** How each `slow` call ended: released by the test, or aborted by the pipeline. */
  readonly endings: string[] = [];
  /** Set once the streamed source of `ticks` has been closed (its `finally` ran). */
  ticksClosed = false;
  ticksYielded = 0;
  #release: () => void = () => undefined;
  #released = new Promise<void>((resolve) => {
    this.#release = resolve;
  });

  release(): void {
    this.#release();
  }

  slow(signal: AbortSignal): Promise<string> {
    this.signals.push(signal);
    return new Promise((resolve, reject) => {
      const aborted = () => {
        this.endings.push('aborted');
        reject(new Error('aborted'));
      };
      if (signal.aborted) return aborted();
      signal.addEventListener('abort', aborted, { once: true });
      void this.#released.then(() => {
        signal.removeEventListener('abort', aborted);
        this.endings.push('released');
        resolve('at last');
      });
    });
  }

  async *ticks(): AsyncGenerator<number> {
    try {
      for (let tick = 0; ; tick++) {
        this.ticksYielded++;
        yield tick;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    } finally {
      this.ticksClosed = true;
    }
  }
}

function controlledSchema(controls: () => Controls) {
  return makeSchema({
    typeDefs: `
      type Query {
        fast: String!
        slow: String
        "Throws an Error whose message a client must never see in production."
        failing: String
        "The same, non-null: the null reaches the deferred fragment."
        strict: String!
        ticks: [Int!]!
      }
    `,
    resolvers: {
      Query: {
        fast: () => 'now',
        slow: (_parent: unknown, _args: unknown, context: { signal: AbortSignal }) => controls().slow(context.signal),
        failing: () => {
          throw new Error('The database password is hunter2.');
        },
        strict: () => {
          throw new Error('The database password is hunter2.');
        },
        ticks: () => controls().ticks(),
      },
    },
    incremental: true,
  });
}

// ---------------------------------------------------------------------------------------------
// HTTP: multipart/mixed on the demo's fields
// ---------------------------------------------------------------------------------------------

describe('HTTP: multipart/mixed, exact bytes on the demo fields', () => {
  let server: GraphQLServer;
  let url = '';
  beforeAll(async () => {
    const data = createDemoData();
    ({ server, url } = await serve({
      schema: demoSchema,
      context: (_request, { identity }) => createDemoContext(data, identity),
      cors: { origins: ['https://app.example'] },
      rateLimit: { requests: { limit: 1000, windowSeconds: 60 } },
    }));
  });
  afterAll(() => closeNow(server));

  const deferredInitial = {
    data: { books: { items: [{ title: 'Cosmos' }, { title: 'Pale Blue Dot' }] } },
    pending: [
      { id: '0', path: ['books', 'items', 0], label: 'more' },
      { id: '1', path: ['books', 'items', 1], label: 'more' },
    ],
    hasNext: true,
    extensions: { cost: { requested: 6, limit: 1000 } },
  };

  it('a deferred query, current format (incrementalSpec=v0.2): the first payload, then the deferred parts, then the close delimiter', async () => {
    const response = await post(url, DEFERRED, CURRENT);
    expect(response.status).toBe(200);
    expect(headersOf(response, Object.keys(MULTIPART_HEADERS))).toEqual(MULTIPART_HEADERS);
    expect(await response.text()).toBe(
      multipart(deferredInitial, {
        hasNext: false,
        incremental: [
          { id: '0', data: { author: { name: 'Carl Sagan' }, reviews: [{ stars: 5 }] } },
          { id: '1', data: { author: { name: 'Carl Sagan' }, reviews: [] } },
        ],
        completed: [{ id: '0' }, { id: '1' }],
        // The whole cost report, `actual` the cost of every part, on the last payload.
        extensions: { cost: { requested: 6, actual: 6, limit: 1000 } },
      }),
    );
  });

  it('the same query, 2022 format (deferSpec=20220824): no ids, each part at its path with its label', async () => {
    const response = await post(url, DEFERRED, LEGACY);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('multipart/mixed; boundary="-"');
    expect(await response.text()).toBe(
      multipart(
        { data: deferredInitial.data, hasNext: true, extensions: deferredInitial.extensions },
        {
          hasNext: false,
          incremental: [
            { data: { author: { name: 'Carl Sagan' }, reviews: [{ stars: 5 }] }, path: ['books', 'items', 0], label: 'more' },
            { data: { author: { name: 'Carl Sagan' }, reviews: [] }, path: ['books', 'items', 1], label: 'more' },
          ],
          extensions: { cost: { requested: 6, actual: 6, limit: 1000 } },
        },
      ),
    );
  });

  it('a streamed list, current format: the initial items, then the rest under the stream id', async () => {
    const response = await post(url, STREAMED, CURRENT);
    expect(await response.text()).toBe(
      multipart(
        { data: { books: { items: [{ title: 'Cosmos' }] } }, pending: [{ id: '0', path: ['books', 'items'] }], hasNext: true, extensions: { cost: { requested: 2, limit: 1000 } } },
        {
          hasNext: false,
          incremental: [{ id: '0', items: [{ title: 'Pale Blue Dot' }, { title: 'SPQR' }] }],
          completed: [{ id: '0' }],
          extensions: { cost: { requested: 2, actual: 2, limit: 1000 } },
        },
      ),
    );
  });

  it('a streamed list, 2022 format: the items at the path of the first of them', async () => {
    const response = await post(url, STREAMED, LEGACY);
    expect(await response.text()).toBe(
      multipart(
        { data: { books: { items: [{ title: 'Cosmos' }] } }, hasNext: true, extensions: { cost: { requested: 2, limit: 1000 } } },
        {
          hasNext: false,
          incremental: [{ items: [{ title: 'Pale Blue Dot' }, { title: 'SPQR' }], path: ['books', 'items', 1] }],
          extensions: { cost: { requested: 2, actual: 2, limit: 1000 } },
        },
      ),
    );
  });

  it('GET carries it too', async () => {
    // (x-graphql-csrf: the header CSRF prevention, on by default, asks of a GET.)
    const response = await fetch(`${url}?query=${encodeURIComponent(STREAMED)}`, { headers: { accept: LEGACY, 'x-graphql-csrf': '1' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBeNull();
    expect(await response.text()).toContain('"incremental":[{"items":[{"title":"Pale Blue Dot"},{"title":"SPQR"}],"path":["books","items",1]}]');
  });

  it.each([
    ['multipart/mixed', 'current'],
    ['multipart/mixed;incrementalSpec=v0.2,application/graphql-response+json,application/json;q=0.9', 'current'],
    ['multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json;q=0.9', 'legacy'],
    ['application/json, multipart/mixed', 'current'],
    ['multipart/mixed; deferSpec="20220824"', 'legacy'],
    ['multipart/mixed; incrementalSpec=v0.1, multipart/mixed; deferSpec=20220824', 'legacy'],
  ])('Accept %s gets the %s format', async (accept, format) => {
    const text = await (await post(url, STREAMED, accept)).text();
    expect(text.startsWith('\r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n')).toBe(true);
    expect(text.includes('"pending":[{"id":"0"')).toBe(format === 'current');
  });

  it('CORS and RateLimit headers as on any answer', async () => {
    const response = await post(url, DEFERRED, CURRENT, { origin: 'https://app.example' });
    expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(response.headers.get('ratelimit-policy')).toBe('"requests";q=1000;w=60');
    expect(response.headers.get('ratelimit')).toMatch(/^"requests";r=\d+;t=\d+$/);
    await response.text();
  });

  it('an operation with nothing to defer given its variables runs as a plain one, in JSON, whatever the Accept', async () => {
    const query = 'query ($later: Boolean!) { books(limit: 1) { items { title ... @defer(if: $later) { author { name } } } } }';
    const plain = { data: { books: { items: [{ title: 'The Dispossessed', author: { name: 'Ursula K. Le Guin' } }] } }, extensions: { cost: { requested: 3, actual: 3, limit: 1000 } } };
    for (const accept of ['application/json', CURRENT]) {
      const response = await post(url, query, accept, {}, { later: false });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await response.json()).toEqual(plain);
    }
    // A query that does not defer, with a multipart Accept: JSON.
    const hello = await post(url, '{ books(limit: 1) { total } }', 'multipart/mixed');
    expect(hello.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await hello.json()).toEqual({ data: { books: { total: 5 } }, extensions: { cost: { requested: 1, actual: 1, limit: 1000 } } });
  });
});

describe('HTTP: refused where it cannot be carried', () => {
  let server: GraphQLServer;
  let url = '';
  beforeAll(async () => {
    const data = createDemoData();
    ({ server, url } = await serve({ schema: demoSchema, context: (_request, { identity }) => createDemoContext(data, identity) }));
  });
  afterAll(() => closeNow(server));

  const refusal = {
    errors: [
      {
        message:
          'This operation defers or streams part of its result (@defer, @stream): send it on its own, not in a batch, with the header "Accept: multipart/mixed; incrementalSpec=v0.2" (or "multipart/mixed; deferSpec=20220824" for the 2022 format).',
        extensions: { code: 'INCREMENTAL_DELIVERY_NOT_ACCEPTABLE' },
      },
    ],
  };

  it.each([
    ['application/json', 'application/json; charset=utf-8'],
    ['application/graphql-response+json', 'application/graphql-response+json; charset=utf-8'],
    [null, 'application/json; charset=utf-8'],
    ['*/*', 'application/json; charset=utf-8'],
  ])('Accept %s: 406 with the error that names the header to send', async (accept, type) => {
    const response = await post(url, DEFERRED, accept);
    expect(response.status).toBe(406);
    expect(response.headers.get('content-type')).toBe(type);
    expect(await response.json()).toEqual(refusal);
  });

  it('over GET too, and a streamed query the same', async () => {
    const response = await fetch(`${url}?query=${encodeURIComponent(STREAMED)}`, { headers: { accept: 'application/json', 'x-graphql-csrf': '1' } });
    expect(response.status).toBe(406);
    expect(await response.json()).toEqual(refusal);
  });

  it('after the same text was run with a multipart Accept (the known-request fast path checks it again)', async () => {
    await (await post(url, DEFERRED, CURRENT)).text();
    const response = await post(url, DEFERRED, 'application/json');
    expect(response.status).toBe(406);
    expect(await response.json()).toEqual(refusal);
  });

  it('a batch item, in its place, the batch answered 200', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: `${CURRENT}, application/json` },
      body: JSON.stringify([{ query: DEFERRED }, { query: '{ books(limit: 1) { total } }' }]),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([refusal, { data: { books: { total: 5 } }, extensions: { cost: { requested: 1, actual: 1, limit: 1000 } } }]);
  });

  it('an Accept naming only a version of the spec this server does not write: 406 before anything runs', async () => {
    const response = await post(url, DEFERRED, 'multipart/mixed; deferSpec=20190101');
    expect(response.status).toBe(406);
    expect(await response.json()).toEqual({ error: { code: 'NOT_ACCEPTABLE', message: 'The Accept header allows neither application/graphql-response+json nor application/json.' } });
  });
});

// ---------------------------------------------------------------------------------------------
// Parts as soon as they are ready; errors inside parts; the client going away; the timeout
// ---------------------------------------------------------------------------------------------

/** A POST read chunk by chunk over node:http, so that the test sees each part when it arrives. */
class PartReader {
  readonly request: http.ClientRequest;
  text = '';
  #response: Promise<http.IncomingMessage>;
  #waiters: Array<() => void> = [];

  constructor(url: string, query: string, accept: string) {
    this.request = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept } });
    this.#response = new Promise((resolve, reject) => {
      this.request.on('response', (response) => {
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          this.text += chunk;
          for (const waiter of this.#waiters.splice(0)) waiter();
        });
        response.on('error', () => undefined);
        resolve(response);
      });
      this.request.on('error', reject);
    });
    this.request.end(JSON.stringify({ query }));
  }

  /** Waits until the body received so far holds `count` complete parts (each ends with its delimiter). */
  async parts(count: number): Promise<string> {
    await this.#response;
    const deadline = Date.now() + 3000;
    while (this.text.split('\r\n---').length - 2 < count) {
      if (Date.now() > deadline) throw new Error(`Only ${this.text.split('\r\n---').length - 2} parts arrived: ${JSON.stringify(this.text)}`);
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return this.text;
  }

  destroy(): void {
    this.request.destroy();
  }
}

describe('HTTP: each part when it is ready, and what ends the work', () => {
  let controls = new Controls();
  const schema = controlledSchema(() => controls);

  async function serveControlled(options: Partial<ServerOptions> = {}): Promise<string> {
    controls = new Controls();
    const { server, url } = await serve({ schema, context: (_request, { signal }) => ({ signal }), ...options });
    onTestFinished(() => closeNow(server));
    return url;
  }

  it('writes the first payload before the deferred part is ready, and the rest once it is', async () => {
    const url = await serveControlled();
    const reader = new PartReader(url, '{ fast ... @defer { slow } }', CURRENT);
    const first = await reader.parts(1);
    expect(first).toBe(
      '\r\n---\r\nContent-Type: application/json; charset=utf-8\r\n\r\n' +
        '{"data":{"fast":"now"},"pending":[{"id":"0","path":[]}],"hasNext":true,"extensions":{"cost":{"requested":0,"limit":1000}}}\r\n---',
    );
    expect(controls.endings).toEqual([]);
    controls.release();
    expect(await reader.parts(2)).toBe(
      first + '\r\nContent-Type: application/json; charset=utf-8\r\n\r\n' + '{"hasNext":false,"incremental":[{"id":"0","data":{"slow":"at last"}}],"completed":[{"id":"0"}],"extensions":{"cost":{"requested":0,"actual":0,"limit":1000}}}\r\n-----\r\n',
    );
  });

  it('in production, masks an unexpected error inside a deferred part and in a failed fragment, each coded, with a request id', async () => {
    const url = await serveControlled({ production: true });
    const response = await post(url, '{ fast ... @defer(label: "a") { failing } ... @defer(label: "b") { strict } }', CURRENT);
    const text = await response.text();
    expect(text).not.toContain('hunter2');
    const parts = text.split('\r\n---').slice(1, -1).map((part) => JSON.parse(part.slice(part.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>);
    expect(parts[0]).toEqual({ data: { fast: 'now' }, pending: [{ id: '0', path: [], label: 'a' }, { id: '1', path: [], label: 'b' }], hasNext: true, extensions: { cost: { requested: 0, limit: 1000 } } });
    const masked = (path: string) => ({
      message: 'Unexpected error.',
      locations: [expect.any(Object)],
      path: [path],
      // The request line's id, which the error's log entry carries too.
      extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: expect.stringMatching(/^\S+$/) },
    });
    const rest = parts.slice(1);
    expect(rest.at(-1)?.['hasNext']).toBe(false);
    expect(rest.flatMap((part) => (part['incremental'] as unknown[] | undefined) ?? [])).toEqual([{ id: '0', data: { failing: null }, errors: [masked('failing')] }]);
    expect(rest.flatMap((part) => (part['completed'] as unknown[] | undefined) ?? [])).toEqual(expect.arrayContaining([{ id: '0' }, { id: '1', errors: [masked('strict')] }]));
  });

  it('outside production, the same errors keep their message and get a code', async () => {
    const url = await serveControlled({ production: false });
    const text = await (await post(url, '{ fast ... @defer { failing } }', CURRENT)).text();
    expect(text).toContain('"errors":[{"message":"The database password is hunter2.","locations":[{"line":1,"column":21}],"path":["failing"],"extensions":{"code":"INTERNAL_SERVER_ERROR"}}]');
  });

  it('a client that goes away mid-way: the deferred resolver\'s signal aborts and it ends', async () => {
    const url = await serveControlled();
    const reader = new PartReader(url, '{ fast ... @defer { slow } }', CURRENT);
    await reader.parts(1);
    await vi.waitFor(() => expect(controls.signals).toHaveLength(1));
    reader.destroy();
    await vi.waitFor(() => {
      expect(controls.signals[0]?.aborted).toBe(true);
      expect(controls.endings).toEqual(['aborted']);
    });
  });

  it('a client that goes away mid-way: the streamed source is closed, and nothing ticks on', async () => {
    const url = await serveControlled();
    const reader = new PartReader(url, '{ fast ticks @stream(initialCount: 1) }', CURRENT);
    await reader.parts(2);
    reader.destroy();
    await vi.waitFor(() => expect(controls.ticksClosed).toBe(true));
    const yielded = controls.ticksYielded;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(controls.ticksYielded).toBe(yielded);
  });

  it('a client that goes away mid-way from a deferred part and a stream: both stop', async () => {
    const url = await serveControlled();
    const reader = new PartReader(url, '{ fast ... @defer { slow } ticks @stream(initialCount: 1) }', CURRENT);
    await reader.parts(2);
    reader.destroy();
    await vi.waitFor(
      () => {
        expect(controls.endings).toEqual(['aborted']);
        expect(controls.ticksClosed).toBe(true);
      },
      { timeout: 500 },
    );
  });

  it('the timeout bounds the whole operation: past it, the pending parts complete with TIMEOUT (current format) and the work stops', async () => {
    const url = await serveControlled({ executionTimeoutMs: 300 });
    const text = await (await post(url, '{ fast ... @defer { slow } }', CURRENT)).text();
    expect(text).toBe(
      multipart(
        { data: { fast: 'now' }, pending: [{ id: '0', path: [] }], hasNext: true, extensions: { cost: { requested: 0, limit: 1000 } } },
        { hasNext: false, completed: [{ id: '0', errors: [{ message: 'Execution timed out after 300 ms.', extensions: { code: 'TIMEOUT' } }] }] },
      ),
    );
    expect(controls.signals[0]?.aborted).toBe(true);
    expect(controls.endings).toEqual(['aborted']);
  });

  it('in the 2022 format, which names no pending part, the last payload carries the TIMEOUT error', async () => {
    const url = await serveControlled({ executionTimeoutMs: 300 });
    const text = await (await post(url, '{ fast ... @defer { slow } }', LEGACY)).text();
    expect(text).toBe(
      multipart(
        { data: { fast: 'now' }, hasNext: true, extensions: { cost: { requested: 0, limit: 1000 } } },
        { hasNext: false, errors: [{ message: 'Execution timed out after 300 ms.', extensions: { code: 'TIMEOUT' } }] },
      ),
    );
    expect(controls.endings).toEqual(['aborted']);
  });
});

// ---------------------------------------------------------------------------------------------
// Server-Sent Events and the WebSocket
// ---------------------------------------------------------------------------------------------

/** The demo server (no cost report) for one describe block: started before its tests, closed after; `url` is read in a test. */
function demoServerForSuite(): { readonly url: string; readonly server: GraphQLServer } {
  const started: { url: string; server: GraphQLServer | null } = { url: '', server: null };
  beforeAll(async () => {
    const data = createDemoData();
    const { server, url } = await serve({ schema: demoSchema, context: (_request, { identity }) => createDemoContext(data, identity), reportCost: false });
    Object.assign(started, { server, url });
  });
  afterAll(() => (started.server === null ? undefined : closeNow(started.server)));
  return started as { readonly url: string; readonly server: GraphQLServer };
}

describe('Server-Sent Events and graphql-transport-ws: a next per payload, then complete', () => {
  const demo = demoServerForSuite();

  const initial = { data: { books: { items: [{ title: 'Cosmos' }, { title: 'Pale Blue Dot' }] } }, pending: [{ id: '0', path: ['books', 'items', 0], label: 'more' }, { id: '1', path: ['books', 'items', 1], label: 'more' }], hasNext: true };
  const rest = {
    hasNext: false,
    incremental: [
      { id: '0', data: { author: { name: 'Carl Sagan' }, reviews: [{ stars: 5 }] } },
      { id: '1', data: { author: { name: 'Carl Sagan' }, reviews: [] } },
    ],
    completed: [{ id: '0' }, { id: '1' }],
  };

  it('SSE (distinct connections): event next per payload in the current format, then event complete', async () => {
    const response = await post(demo.url, DEFERRED, 'text/event-stream');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await response.text()).toBe(`event: next\ndata: ${JSON.stringify(initial)}\n\nevent: next\ndata: ${JSON.stringify(rest)}\n\nevent: complete\ndata:\n\n`);
  });

  it('SSE over GET the same', async () => {
    const response = await fetch(`${demo.url}?query=${encodeURIComponent(STREAMED)}`, { headers: { accept: 'text/event-stream', 'x-graphql-csrf': '1' } });
    expect(await response.text()).toBe(
      `event: next\ndata: ${JSON.stringify({ data: { books: { items: [{ title: 'Cosmos' }] } }, pending: [{ id: '0', path: ['books', 'items'] }], hasNext: true })}\n\n` +
        `event: next\ndata: ${JSON.stringify({ hasNext: false, incremental: [{ id: '0', items: [{ title: 'Pale Blue Dot' }, { title: 'SPQR' }] }], completed: [{ id: '0' }] })}\n\n` +
        'event: complete\ndata:\n\n',
    );
  });

  it('WebSocket: next per payload, then complete', async () => {
    const client = await RawClient.open(demo.url.replace('http:', 'ws:'));
    onTestFinished(() => client.terminate());
    await client.init();
    client.send({ id: 'd1', type: 'subscribe', payload: { query: DEFERRED } });
    expect(await client.next()).toEqual({ id: 'd1', type: 'next', payload: initial });
    expect(await client.next()).toEqual({ id: 'd1', type: 'next', payload: rest });
    expect(await client.next()).toEqual({ id: 'd1', type: 'complete' });
    expect(demo.server.websocket?.subscriptions).toBe(0);
  });
});

/** A server over controlledSchema (its resolvers' signal in the context) and an acknowledged graphql-transport-ws client of it; both closed after the test. */
async function controlledSocket(): Promise<{ controls: Controls; client: RawClient }> {
  const controls = new Controls();
  const { server, url } = await serve({ schema: controlledSchema(() => controls), context: (_request, { signal }) => ({ signal }), reportCost: false });
  onTestFinished(() => closeNow(server));
  const client = await RawClient.open(url.replace('http:', 'ws:'));
  onTestFinished(() => client.terminate());
  await client.init();
  return { controls, client };
}

describe('graphql-transport-ws: complete from the client stops the rest', () => {
  it('the later payloads are closed, the signal aborts, nothing more is sent', async () => {
    const { controls, client } = await controlledSocket();
    client.send({ id: 's', type: 'subscribe', payload: { query: '{ fast ... @defer { slow } }' } });
    expect(await client.next()).toEqual({ id: 's', type: 'next', payload: { data: { fast: 'now' }, pending: [{ id: '0', path: [] }], hasNext: true } });
    await vi.waitFor(() => expect(controls.signals).toHaveLength(1));
    client.send({ id: 's', type: 'complete' });
    await vi.waitFor(() => {
      expect(controls.signals[0]?.aborted).toBe(true);
      expect(controls.endings).toEqual(['aborted']);
    });
    // Whatever was in flight when complete arrived, nothing follows it.
    const after = (await client.settle()).filter((message) => message.id === 's' && message.type !== 'next');
    expect(after).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(client.unread()).toEqual([]);
  });
});

describe('graphql-transport-ws: complete from the client closes a stream', () => {
  it('the streamed source is closed, and nothing ticks on', async () => {
    const { controls, client } = await controlledSocket();
    client.send({ id: 't', type: 'subscribe', payload: { query: '{ ticks @stream(initialCount: 2) }' } });
    expect(await client.next()).toEqual({ id: 't', type: 'next', payload: { data: { ticks: [0, 1] }, pending: [{ id: '0', path: ['ticks'] }], hasNext: true } });
    client.send({ id: 't', type: 'complete' });
    await vi.waitFor(() => expect(controls.ticksClosed).toBe(true));
    const yielded = controls.ticksYielded;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(controls.ticksYielded).toBe(yielded);
    expect((await client.settle()).filter((message) => message.type !== 'next')).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Resource routes
// ---------------------------------------------------------------------------------------------

describe('resource routes', () => {
  it.each([
    ['GET /books', 'query { books { items { title ... @defer { author { name } } } } }'],
    ['GET /authors', 'query ($s: Boolean!) { authors @stream(if: $s) { name } }'],
  ])('a route whose operation defers or streams (%s) is refused when the routes are made, naming the route', (route, query) => {
    expect(() => createServer({ schema: demoSchema, resources: { version: 'v1', routes: { [route]: query } } })).toThrow(
      new TypeError(`Route "${route}" (v1): an operation that defers or streams (@defer, @stream) cannot be a resource route: a route answers with one body.`),
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Authorization and limits: decided for the whole operation before the first payload
// ---------------------------------------------------------------------------------------------

describe('authorization and limits, before the first payload', () => {
  const demo = demoServerForSuite();

  it('a field the caller may not use, inside a deferred part: null with FORBIDDEN in that part, as inline', async () => {
    const text = await (await post(demo.url, '{ books(limit: 1, sort: TITLE) { items { title ... @defer { author { name email } } } } }', CURRENT)).text();
    const parts = text.split('\r\n---').slice(1, -1).map((part) => JSON.parse(part.slice(part.indexOf('\r\n\r\n') + 4)) as unknown);
    expect(parts).toEqual([
      { data: { books: { items: [{ title: 'Cosmos' }] } }, pending: [{ id: '0', path: ['books', 'items', 0] }], hasNext: true },
      {
        hasNext: false,
        incremental: [
          {
            id: '0',
            data: { author: { name: 'Carl Sagan', email: null } },
            errors: [{ message: expect.stringContaining('email'), locations: [expect.any(Object)], path: ['books', 'items', 0, 'author', 'email'], extensions: { code: 'FORBIDDEN' } }],
          },
        ],
        completed: [{ id: '0' }],
      },
    ]);
  });

  it('an operation over a limit is refused whole, before anything runs: a request error, no part', async () => {
    const query = `{ books(limit: 1) { items { ${'... @defer { title } '.repeat(33)}} } }`;
    const response = await post(demo.url, query, `${CURRENT}, application/graphql-response+json`);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    expect(await response.json()).toEqual({
      errors: [{ message: 'The operation defers or streams 33 parts; the limit is 32.', extensions: { code: 'INCREMENTAL_LIMIT_EXCEEDED', measured: 33, limit: 32 } }],
    });
  });
});
