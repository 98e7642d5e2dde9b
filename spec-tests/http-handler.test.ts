/**
 * `createHandler`, the transport-free GraphQL-over-HTTP handler, called directly: a
 * `PlainRequest` in, `[body, { status, headers }]` out, with no server and no socket. It answers
 * synchronously when execution is synchronous and with a Promise otherwise; the context factory
 * gets the transport's request and a scope whose signal aborts on timeout or when the client
 * goes (`onClientGone`, registered only for asynchronous executions).
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createHandler, makeSchema } from '../src/index.ts';
import { mediaRanges } from '../src/transports/httpHeaders.ts';
import type { HandlerOptions, HandlerResponse, OperationScope, PlainRequest } from '../src/index.ts';
import { jsonSyntaxMessage } from './support/httpServer.ts';

const GRAPHQL_RESPONSE = 'application/graphql-response+json; charset=utf-8';
const JSON_RESPONSE = 'application/json; charset=utf-8';

/** The transport's own request object, as the handler passes it on. */
interface Raw {
  readonly id: string;
}

/** A promise and the function that resolves it. */
function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

interface Context {
  readonly signal: AbortSignal;
  readonly request?: unknown;
}

/** What the resolvers saw, per test. */
interface Observed {
  contexts: unknown[];
  gate: Promise<void>;
  /** `context.signal.aborted` read by `Query.gated` once its gate opened. */
  abortedAfterGate: boolean | null;
}

function schemaObserving(observed: Observed) {
  return makeSchema({
    typeDefs: /* GraphQL */ `
      type Thing { name: String inner: String }
      type Query {
        hello: String
        later: String
        never: String
        thing: Thing
        gated: Thing
        seen: String
        fails: String
      }
      type Mutation { bump: Int }
    `,
    resolvers: {
      Query: {
        hello: () => 'world',
        later: async () => 'later',
        never: () => new Promise(() => undefined),
        thing: () => ({ name: 'a thing' }),
        gated: async (_: unknown, __: unknown, context: Context) => {
          await observed.gate;
          observed.abortedAfterGate = context.signal.aborted;
          return { name: 'after the gate' };
        },
        seen: (_: unknown, __: unknown, context: unknown) => {
          observed.contexts.push(context);
          return 'seen';
        },
        fails: () => {
          throw new Error('resolver failed');
        },
      },
      Thing: { inner: () => 'inner' },
      Mutation: { bump: () => 1 },
    },
  });
}

function setup(options: Partial<HandlerOptions<Raw>> = {}) {
  const observed: Observed = { contexts: [], gate: Promise.resolve(), abortedAfterGate: null };
  const handle = createHandler<Raw>({ schema: schemaObserving(observed), production: false, reportCost: false, ...options });
  return { handle, observed };
}

const RAW: Raw = { id: 'raw request' };

function post(body: unknown, headers: Record<string, string> = {}, extra: Partial<PlainRequest<Raw>> = {}): PlainRequest<Raw> {
  return {
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    raw: RAW,
    ...extra,
  };
}

/** A GET as a client sends it under CSRF prevention (on by default): with a header a cross-site page cannot send. */
function get(search: Record<string, string>, headers: Record<string, string> = {}): PlainRequest<Raw> {
  return {
    method: 'GET',
    url: `/graphql?${new URLSearchParams(search).toString()}`,
    headers: { accept: 'application/graphql-response+json', 'x-graphql-csrf': '1', ...headers },
    body: null,
    raw: RAW,
  };
}

/** A synchronous answer: not a Promise. */
function sync(answer: HandlerResponse | Promise<HandlerResponse>): HandlerResponse {
  expect(answer).not.toBeInstanceOf(Promise);
  return answer as HandlerResponse;
}

/** An asynchronous answer, awaited. */
async function later(answer: HandlerResponse | Promise<HandlerResponse>): Promise<HandlerResponse> {
  expect(answer).toBeInstanceOf(Promise);
  return await answer;
}


describe('createHandler: synchronous and asynchronous answers', () => {
  it('answers a synchronous POST query synchronously, with [body, init]', () => {
    const { handle } = setup();
    const answer = sync(handle(post({ query: '{ hello }' })));
    expect(answer).toEqual(['{"data":{"hello":"world"}}', { status: 200, headers: { 'content-type': GRAPHQL_RESPONSE } }]);
  });

  it('answers with application/json when the Accept header asks for it', () => {
    const { handle } = setup();
    const answer = sync(handle(post({ query: '{ hello }' }, { accept: 'application/json' })));
    expect(answer).toEqual(['{"data":{"hello":"world"}}', { status: 200, headers: { 'content-type': JSON_RESPONSE } }]);
  });

  it('reports the cost by default: requested, actual and limit', () => {
    const { handle } = setup({ reportCost: undefined });
    const [body, init] = sync(handle(post({ query: '{ hello thing { name } }' })));
    expect(init).toEqual({ status: 200, headers: { 'content-type': GRAPHQL_RESPONSE } });
    expect(body).toBe(
      JSON.stringify({ data: { hello: 'world', thing: { name: 'a thing' } }, extensions: { cost: { requested: 1, actual: 1, limit: 1000 } } }),
    );
  });

  it('answers with a Promise of the same shape when a resolver returns a promise', async () => {
    const { handle } = setup();
    const answer = await later(handle(post({ query: '{ hello later }' })));
    expect(answer).toEqual(['{"data":{"hello":"world","later":"later"}}', { status: 200, headers: { 'content-type': GRAPHQL_RESPONSE } }]);
  });

  it('gives resolver errors a code, with the data beside them', () => {
    const { handle } = setup();
    const [body, init] = sync(handle(post({ query: '{ hello fails }' })));
    expect(init.status).toBe(200);
    expect(JSON.parse(body as string)).toEqual({
      errors: [
        { message: 'resolver failed', locations: [{ line: 1, column: 9 }], path: ['fails'], extensions: { code: 'INTERNAL_SERVER_ERROR' } },
      ],
      data: { hello: 'world', fails: null },
    });
  });
});

describe('createHandler: the context', () => {
  it('calls the factory with the raw request and a scope whose signal is one AbortSignal', () => {
    const calls: Array<{ raw: Raw; scope: OperationScope }> = [];
    const { handle, observed } = setup({
      context: (raw, scope) => {
        calls.push({ raw, scope });
        return { mine: true };
      },
    });
    sync(handle(post({ query: '{ seen }' })));
    expect(calls).toHaveLength(1);
    const { raw, scope } = calls[0]!;
    expect(raw).toBe(RAW);
    const signal = scope.signal;
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(scope.signal).toBe(signal);
    expect(signal.aborted).toBe(false);
    expect(observed.contexts).toEqual([{ mine: true }]);
  });

  it('makes a fresh scope for every request', () => {
    const scopes: OperationScope[] = [];
    const { handle } = setup({ context: (_raw, scope) => scopes.push(scope) });
    sync(handle(post({ query: '{ seen }' })));
    sync(handle(post({ query: '{ seen }' })));
    expect(scopes).toHaveLength(2);
    expect(scopes[0]).not.toBe(scopes[1]);
    expect(scopes[0]!.signal).not.toBe(scopes[1]!.signal);
  });

  it('without a factory, the context holds the raw request and an AbortSignal (the same on every read)', () => {
    const { handle, observed } = setup();
    sync(handle(post({ query: '{ seen }' })));
    const context = observed.contexts[0] as Context;
    expect(context.request).toBe(RAW);
    expect(context.signal).toBeInstanceOf(AbortSignal);
    expect(context.signal).toBe(context.signal);
    expect(context.signal.aborted).toBe(false);
  });

  it('accepts a factory that returns a Promise (the answer is then a Promise)', async () => {
    const { handle, observed } = setup({ context: async () => ({ resolved: true }) });
    const answer = await later(handle(post({ query: '{ seen }' })));
    expect(answer).toEqual(['{"data":{"seen":"seen"}}', { status: 200, headers: { 'content-type': GRAPHQL_RESPONSE } }]);
    expect(observed.contexts).toEqual([{ resolved: true }]);
  });

  it('throws from handle when the factory throws synchronously (the node adapter answers 500)', () => {
    const failure = new Error('no context');
    const { handle } = setup({
      context: () => {
        throw failure;
      },
    });
    expect(() => handle(post({ query: '{ hello }' }))).toThrow(failure);
  });

  it('rejects when the factory rejects', async () => {
    const failure = new Error('no context, later');
    const { handle } = setup({ context: () => Promise.reject(failure) });
    const answer = handle(post({ query: '{ hello }' }));
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).rejects.toBe(failure);
  });
});

describe('createHandler: the client going away', () => {
  it('does not register onClientGone for a synchronous execution', () => {
    const registered: Array<() => void> = [];
    const { handle } = setup();
    sync(handle(post({ query: '{ hello }' }, {}, { onClientGone: (callback) => registered.push(callback) })));
    expect(registered).toHaveLength(0);
  });

  it('does not register it when only the context is asynchronous', async () => {
    const registered: Array<() => void> = [];
    const { handle } = setup({ context: async () => ({}) });
    await later(handle(post({ query: '{ hello }' }, {}, { onClientGone: (callback) => registered.push(callback) })));
    expect(registered).toHaveLength(0);
  });

  it('registers it once for an asynchronous execution; calling it aborts the signal and stops later resolvers', async () => {
    const registered: Array<() => void> = [];
    const { handle, observed } = setup();
    const { promise, open } = gate();
    observed.gate = promise;
    const answer = handle(post({ query: '{ gated { name inner } }' }, {}, { onClientGone: (callback) => registered.push(callback) }));
    expect(answer).toBeInstanceOf(Promise);
    expect(registered).toHaveLength(1);

    registered[0]!();
    open();
    const [body, init] = await answer;
    expect(observed.abortedAfterGate).toBe(true);
    expect(init).toEqual({ status: 200, headers: { 'content-type': GRAPHQL_RESPONSE } });
    // `name` is a plain property read, which an abort does not stop; `inner` has a resolver.
    expect(JSON.parse(body as string)).toEqual({
      errors: [
        {
          message: 'The client closed the connection.',
          locations: [{ line: 1, column: 16 }],
          path: ['gated', 'inner'],
          extensions: { code: 'INTERNAL_SERVER_ERROR' },
        },
      ],
      data: { gated: { name: 'after the gate', inner: null } },
    });
  });

  it('leaves the signal alone when the client stays', async () => {
    const { handle, observed } = setup();
    const { promise, open } = gate();
    observed.gate = promise;
    const answer = handle(post({ query: '{ gated { inner } }' }, {}, { onClientGone: () => undefined }));
    open();
    expect(await later(answer)).toEqual([
      '{"data":{"gated":{"inner":"inner"}}}',
      { status: 200, headers: { 'content-type': GRAPHQL_RESPONSE } },
    ]);
    expect(observed.abortedAfterGate).toBe(false);
  });
});

describe('createHandler: the execution timeout', () => {
  it('answers TIMEOUT with data null when a resolver never settles, and aborts the signal', async () => {
    const scopes: OperationScope[] = [];
    const { handle } = setup({
      executionTimeoutMs: 20,
      context: (_raw, scope) => {
        scopes.push(scope);
        return {};
      },
    });
    const answer = await later(handle(post({ query: '{ hello never }' })));
    expect(answer).toEqual([
      JSON.stringify({ errors: [{ message: 'Execution timed out after 20 ms.', extensions: { code: 'TIMEOUT' } }], data: null }),
      { status: 200, headers: { 'content-type': GRAPHQL_RESPONSE } },
    ]);
    expect(scopes[0]!.signal.aborted).toBe(true);
    expect((scopes[0]!.signal.reason as Error).message).toBe('Execution timed out after 20 ms.');
  });
});

describe('createHandler: HTTP failures', () => {
  it('404 for another path', () => {
    const { handle } = setup();
    expect(sync(handle({ ...post({ query: '{ hello }' }), url: '/other?query=x' }))).toEqual([
      '{"error":{"code":"NOT_FOUND","message":"Nothing is served at /other; the GraphQL endpoint is /graphql."}}',
      { status: 404, headers: { 'content-type': JSON_RESPONSE } },
    ]);
  });

  it('serves the configured path instead of /graphql', () => {
    const { handle } = setup({ path: '/api' });
    expect(sync(handle({ ...post({ query: '{ hello }' }), url: '/api' }))[1].status).toBe(200);
    expect(sync(handle(post({ query: '{ hello }' })))[1].status).toBe(404);
  });

  it('405 with allow: GET, POST for PUT', () => {
    const { handle } = setup();
    expect(sync(handle({ ...post({ query: '{ hello }' }), method: 'PUT' }))).toEqual([
      '{"error":{"code":"METHOD_NOT_ALLOWED","message":"Method PUT is not allowed; use GET or POST."}}',
      { status: 405, headers: { 'content-type': JSON_RESPONSE, allow: 'GET, POST' } },
    ]);
  });

  it('406 when the Accept header allows neither JSON media type', () => {
    const { handle } = setup();
    expect(sync(handle(post({ query: '{ hello }' }, { accept: 'text/html' })))).toEqual([
      '{"error":{"code":"NOT_ACCEPTABLE","message":"The Accept header allows neither application/graphql-response+json nor application/json."}}',
      { status: 406, headers: { 'content-type': JSON_RESPONSE } },
    ]);
  });

  it('415 for a POST body that is not application/json', () => {
    const { handle } = setup();
    // (Not a simple Content-Type such as text/plain, which CSRF prevention refuses first.)
    expect(sync(handle(post({ query: '{ hello }' }, { 'content-type': 'application/xml' })))).toEqual([
      '{"error":{"code":"UNSUPPORTED_MEDIA_TYPE","message":"Content-Type application/xml is not supported; send application/json."}}',
      { status: 415, headers: { 'content-type': JSON_RESPONSE } },
    ]);
  });

  it('400 BAD_REQUEST for malformed JSON', () => {
    const { handle } = setup();
    const text = '{"query": ';
    expect(sync(handle(post(text)))).toEqual([
      JSON.stringify({
        errors: [{ message: `The request body is not valid JSON: ${jsonSyntaxMessage(text)}`, extensions: { code: 'BAD_REQUEST' } }],
      }),
      { status: 400, headers: { 'content-type': GRAPHQL_RESPONSE } },
    ]);
  });

  it('400 BAD_REQUEST for an empty body', () => {
    const { handle } = setup();
    expect(sync(handle({ ...post(''), body: null }))).toEqual([
      JSON.stringify({
        errors: [{ message: 'The request body is empty; expected a JSON object with a "query".', extensions: { code: 'BAD_REQUEST' } }],
      }),
      { status: 400, headers: { 'content-type': GRAPHQL_RESPONSE } },
    ]);
  });

  it('400 for a validation error under application/graphql-response+json, 200 under application/json', () => {
    const { handle } = setup();
    const body = JSON.stringify({
      errors: [
        {
          message: 'Cannot query field "nope" on type "Query".',
          locations: [{ line: 1, column: 3 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    });
    expect(sync(handle(post({ query: '{ nope }' })))).toEqual([body, { status: 400, headers: { 'content-type': GRAPHQL_RESPONSE } }]);
    // A refused document is not kept: the second request prepares it again. A handler of its
    // own, so that the first one's work does not count against this turn's (preparationQueue.ts).
    expect(sync(setup().handle(post({ query: '{ nope }' }, { accept: 'application/json' })))).toEqual([
      body,
      { status: 200, headers: { 'content-type': JSON_RESPONSE } },
    ]);
  });
});

describe('createHandler: GET', () => {
  it('runs a query from the URL parameters, with an ETag', () => {
    const { handle } = setup();
    const [body, init] = sync(handle(get({ query: 'query Q { hello }', operationName: 'Q' })));
    expect(body).toBe('{"data":{"hello":"world"}}');
    expect(init).toEqual({
      status: 200,
      headers: { 'content-type': GRAPHQL_RESPONSE, etag: expect.stringMatching(/^"[A-Za-z0-9_-]+"$/), 'cache-control': 'no-cache' },
    });
  });

  it('reads variables from their JSON parameter', () => {
    const { handle } = setup();
    const [body] = sync(handle(get({ query: 'query ($skip: Boolean!) { hello thing @skip(if: $skip) { name } }', variables: '{"skip":true}' })));
    expect(body).toBe('{"data":{"hello":"world"}}');
  });

  it('answers 304 with a null body when If-None-Match has the ETag', () => {
    const { handle } = setup();
    const [, first] = sync(handle(get({ query: '{ hello }' })));
    const etag = first.headers['etag'] as string;
    expect(sync(handle(get({ query: '{ hello }' }, { 'if-none-match': etag })))).toEqual([null, { status: 304, headers: { etag } }]);
    expect(sync(handle(get({ query: '{ hello }' }, { 'if-none-match': `"other", W/${etag}` })))).toEqual([
      null,
      { status: 304, headers: { etag } },
    ]);
  });

  it('gives the same URL a new ETag, the hash of the new answer, once the answer changes', () => {
    let count = 0;
    const schema = makeSchema({ typeDefs: 'type Query { count: Int }', resolvers: { Query: { count: () => count } } });
    const handle = createHandler<Raw>({ schema, production: false, reportCost: false });
    const etags: string[] = [];
    for (const next of [1, 1, 2, 1]) {
      count = next;
      const [body, init] = sync(handle(get({ query: '{ count }' })));
      expect(body).toBe(`{"data":{"count":${next}}}`);
      expect(init.headers['etag']).toBe(`"${createHash('sha1').update(body as string).digest('base64url')}"`);
      etags.push(init.headers['etag'] as string);
    }
    expect(etags[1]).toBe(etags[0]);
    expect(etags[2]).not.toBe(etags[1]);
    expect(etags[3]).toBe(etags[0]);
    // The old tag no longer matches what is there now.
    count = 2;
    expect(sync(handle(get({ query: '{ count }' }, { 'if-none-match': etags[0] as string })))[1].status).toBe(200);
  });

  it('answers 200 when If-None-Match has another ETag', () => {
    const { handle } = setup();
    const [body, init] = sync(handle(get({ query: '{ hello }' }, { 'if-none-match': '"stale"' })));
    expect(body).toBe('{"data":{"hello":"world"}}');
    expect(init.status).toBe(200);
  });

  it('refuses a mutation with 405 and allow: POST', () => {
    const { handle } = setup();
    expect(sync(handle(get({ query: 'mutation { bump }' })))).toEqual([
      '{"error":{"code":"METHOD_NOT_ALLOWED","message":"A mutation cannot be sent with GET; use POST."}}',
      { status: 405, headers: { 'content-type': JSON_RESPONSE, allow: 'POST' } },
    ]);
  });

  it('runs the same mutation over POST', () => {
    const { handle } = setup();
    expect(sync(handle(post({ query: 'mutation { bump }' })))[0]).toBe('{"data":{"bump":1}}');
  });
});

describe('createHandler: batches', () => {
  it('answers a batch of 2 with 2 results in order, one of them the error of a bad item', async () => {
    const { handle } = setup();
    const answer = await later(handle(post([{ query: '{ hello }' }, 5])));
    expect(answer).toEqual([
      JSON.stringify([
        { data: { hello: 'world' } },
        { errors: [{ message: 'A GraphQL request must be a JSON object with a "query".', extensions: { code: 'BAD_REQUEST' } }] },
      ]),
      { status: 200, headers: { 'content-type': GRAPHQL_RESPONSE } },
    ]);
  });

  it('runs asynchronous operations of a batch, each to its own result', async () => {
    const { handle } = setup();
    const answer = await later(handle(post([{ query: '{ later }' }, { query: '{ nope }' }])));
    expect(JSON.parse(answer[0] as string)).toEqual([
      { data: { later: 'later' } },
      {
        errors: [
          { message: 'Cannot query field "nope" on type "Query".', locations: [{ line: 1, column: 3 }], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } },
        ],
      },
    ]);
    expect(answer[1]).toEqual({ status: 200, headers: { 'content-type': GRAPHQL_RESPONSE } });
  });

  it('refuses an empty batch', () => {
    const { handle } = setup();
    expect(sync(handle(post([])))).toEqual([
      JSON.stringify({ errors: [{ message: 'The batch is empty.', extensions: { code: 'BAD_REQUEST' } }] }),
      { status: 400, headers: { 'content-type': GRAPHQL_RESPONSE } },
    ]);
  });
});

describe('mediaRanges: one reading of Accept for every negotiation', () => {
  it('keeps the order, lower-cases types, reads q (1 when absent or not a number) and leaves out q=0', () => {
    expect(mediaRanges(' Text/HTML ;q=0.8, application/json;Q=0, */*;q=x,application/graphql-response+json')).toEqual([
      { type: 'text/html', q: 0.8 },
      { type: '*/*', q: 1 },
      { type: 'application/graphql-response+json', q: 1 },
    ]);
    expect(mediaRanges('')).toEqual([{ type: '', q: 1 }]);
  });
});
