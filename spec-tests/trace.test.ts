/**
 * Execution traces (`extensions.trace`, src/execution/trace.ts): their exact structure for a
 * nested query over BatchLoaders, through the handler, the server's WebSocket and Server-Sent
 * Events, and `execute` itself; who may ask for one (the pipeline's `trace` option); and that
 * tracing changes nothing else: untraced responses byte for byte, and, for random operations
 * over the fixtures, the data and errors of the traced execution.
 *
 * Runs of the property: TRACE_RUNS (default 300 per fixture). To replay a failure, set
 * TRACE_SEED (and TRACE_PATH) to the `seed` (and `path`) fast-check printed.
 */
import fc from 'fast-check';
import { parse } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtures } from '../fixtures/index.ts';
import { THREE_LEVEL_QUERY, createContext, schema as batchingSchema } from '../fixtures/batching/index.ts';
import { BatchLoader, apiKeyAuth, createHandler, createServer, execute, hashApiKey, makeSchema } from '../src/index.ts';
import type { BatchTrace, ExecutionTrace, HandlerOptions, HandlerResponse, PlainRequest, ResolverTrace } from '../src/index.ts';
import { createDemoContext, createDemoData, demoSchema } from '../src/demo/librarySchema.ts';
import { arbitraryOperation, describeOperation } from './support/arbitraryOperation.ts';
import { closeNow, listenOnLoopback } from './support/httpServer.ts';
import { RawClient, openEventStream } from './support/realtime.ts';

const RUNS = Number(process.env.TRACE_RUNS ?? 300);
const SEED = process.env.TRACE_SEED === undefined ? undefined : Number(process.env.TRACE_SEED);
const PATH = process.env.TRACE_PATH;

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** Three levels: Query.books (no loader), Book.author (authorById), Author.books (booksByAuthor). */
const NESTED = '{ books(limit: 5) { items { title author { name books { title } } } } }';

/** The demo's handler over a store of its own; `demo-editor` is an editor's API key. */
function demoHandler(options: Partial<HandlerOptions> = {}) {
  const data = createDemoData();
  return createHandler({
    schema: demoSchema,
    context: (_raw, { identity }) => createDemoContext(data, identity),
    authenticate: [apiKeyAuth({ keys: [{ id: 'editor', hash: hashApiKey('demo-editor'), roles: ['editor'] }] })],
    log: () => undefined,
    production: false,
    ...options,
  });
}

type Handle = (request: PlainRequest) => HandlerResponse | Promise<HandlerResponse>;

async function post(handler: Handle, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const [text, init] = await handler({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', accept: GRAPHQL_RESPONSE, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    raw: {},
  });
  return { status: init.status, text: text as string };
}

async function get(handler: Handle, params: Record<string, string>): Promise<{ status: number; text: string; etag: string | undefined }> {
  // (x-graphql-csrf: the header CSRF prevention, on by default, asks of a GET.)
  const [text, init] = await handler({ method: 'GET', url: `/graphql?${new URLSearchParams(params)}`, headers: { accept: GRAPHQL_RESPONSE, 'x-graphql-csrf': '1' }, body: null, raw: {} });
  return { status: init.status, text: (text ?? '') as string, etag: init.headers['etag'] };
}

function traceOf(result: unknown): ExecutionTrace {
  const trace = (result as ExecutionResult).extensions?.['trace'];
  if (trace === undefined) throw new Error(`The result has no trace: ${JSON.stringify(result)}`);
  return trace as ExecutionTrace;
}

/**
 * What holds of every trace: times are whole, non-negative nanoseconds within the execution;
 * every resolver call is within it; waiters and batches point at each other, both ways.
 */
function checkInvariants(trace: ExecutionTrace): void {
  expect(trace.version).toBe(1);
  expect(new Date(trace.startedAt).toISOString()).toBe(trace.startedAt);
  expect(Number.isInteger(trace.durationNs) && trace.durationNs >= 0).toBe(true);
  const within = (entry: ResolverTrace | BatchTrace) => {
    expect(Number.isInteger(entry.startNs) && entry.startNs >= 0).toBe(true);
    expect(Number.isInteger(entry.durationNs) && entry.durationNs >= 0).toBe(true);
    expect(entry.startNs + entry.durationNs).toBeLessThanOrEqual(trace.durationNs);
  };
  trace.resolvers.forEach((resolver, index) => {
    within(resolver);
    if (index > 0) expect(resolver.startNs).toBeGreaterThanOrEqual((trace.resolvers[index - 1] as ResolverTrace).startNs);
    for (const batch of resolver.batches) expect(trace.batches[batch]?.waiters).toContain(index);
  });
  trace.batches.forEach((batch, index) => {
    within(batch);
    for (const waiter of batch.waiters) expect(trace.resolvers[waiter]?.batches).toContain(index);
  });
}

describe('a traced request over HTTP', () => {
  it('lists every resolver call, in call order, and the two batches of a three-level query, exactly', async () => {
    const handler = demoHandler();
    const { status, text } = await post(handler, { query: NESTED, extensions: { trace: true } });
    expect(status).toBe(200);
    const result = JSON.parse(text) as ExecutionResult;
    // The cost report first, as before; the trace after it.
    expect(Object.keys(result.extensions ?? {})).toEqual(['cost', 'trace']);
    const trace = traceOf(result);
    checkInvariants(trace);

    const items = [0, 1, 2, 3, 4];
    // One call of Query.books, five of Book.author, then, once the authors are in, five of Author.books.
    expect(trace.resolvers.map(({ path, parentType, fieldName, returnType, promise, batches }) => ({ path, parentType, fieldName, returnType, promise, batches }))).toEqual([
      { path: 'books', parentType: 'Query', fieldName: 'books', returnType: 'BookPage!', promise: false, batches: [] },
      ...items.map((i) => ({ path: `books.items.${i}.author`, parentType: 'Book', fieldName: 'author', returnType: 'Author!', promise: true, batches: [0] })),
      ...items.map((i) => ({ path: `books.items.${i}.author.books`, parentType: 'Author', fieldName: 'books', returnType: '[Book!]!', promise: true, batches: [1] })),
    ]);
    // The scheduler's minimum: one batch per loader and level, every key once, in first-asked order.
    expect(trace.batches.map(({ loader, keys, waiters }) => ({ loader, keys, waiters }))).toEqual([
      { loader: 'authorById', keys: ['a1', 'a2', 'a3'], waiters: [1, 2, 3, 4, 5] },
      { loader: 'booksByAuthor', keys: ['a1', 'a2', 'a3'], waiters: [6, 7, 8, 9, 10] },
    ]);
    // A batch goes out once every call in flight waits on it, and before its waiters are answered.
    const [authors, books] = trace.batches as [BatchTrace, BatchTrace];
    for (const waiter of authors.waiters) expect(authors.startNs).toBeGreaterThanOrEqual((trace.resolvers[waiter] as ResolverTrace).startNs);
    expect(books.startNs).toBeGreaterThanOrEqual(authors.startNs + authors.durationNs);

    expect(trace.plan).toEqual({
      operation: 'query',
      name: null,
      jsonWriter: false,
      selectionSets: [
        { path: '', type: 'Query', mode: 'interpreted', fields: ['books'], resolvers: ['books'], plainReads: [], merged: [], denied: [] },
        { path: 'books', type: 'BookPage', mode: 'interpreted', fields: ['items'], resolvers: [], plainReads: [], merged: [], denied: [] },
        { path: 'books.items', type: 'Book', mode: 'interpreted', fields: ['title', 'author'], resolvers: ['author'], plainReads: ['title'], merged: [], denied: [] },
        { path: 'books.items.author', type: 'Author', mode: 'interpreted', fields: ['name', 'books'], resolvers: ['books'], plainReads: ['name'], merged: [], denied: [] },
        { path: 'books.items.author.books', type: 'Book', mode: 'interpreted', fields: ['title'], resolvers: [], plainReads: ['title'], merged: [], denied: [] },
      ],
    });
    // The data is the untraced data.
    const untraced = JSON.parse((await post(handler, { query: NESTED })).text) as ExecutionResult;
    expect(result.data).toEqual(untraced.data);
  });

  it('says which selection sets run as generated code once they have, and which fields were merged', async () => {
    const handler = demoHandler();
    const query = '{ books(limit: 5) { items { title ...T author { name } } } } fragment T on Book { title id }';
    // 5 books and 5 authors per request: past 32 objects after 7 requests.
    for (let i = 0; i < 8; i++) await post(handler, { query });
    const trace = traceOf(JSON.parse((await post(handler, { query, extensions: { trace: true } })).text));
    expect(trace.plan.selectionSets.map(({ path, mode, fields, merged }) => ({ path, mode, fields, merged }))).toEqual([
      { path: '', mode: 'interpreted', fields: ['books'], merged: [] },
      { path: 'books', mode: 'interpreted', fields: ['items'], merged: [] },
      { path: 'books.items', mode: 'generated', fields: ['title', 'id', 'author'], merged: ['title'] },
      { path: 'books.items.author', mode: 'generated', fields: ['name'], merged: [] },
    ]);
  });

  it('traces a query sent with GET, and a mutation', async () => {
    const handler = demoHandler();
    const viaGet = await get(handler, { query: NESTED, extensions: JSON.stringify({ trace: true }) });
    expect(viaGet.status).toBe(200);
    const trace = traceOf(JSON.parse(viaGet.text));
    checkInvariants(trace);
    expect(trace.resolvers).toHaveLength(11);
    expect(trace.batches).toHaveLength(2);

    const mutation = 'mutation { addReview(review: { bookId: "b1", stars: 4 }) { id stars book { title } } }';
    const { status, text } = await post(handler, { query: mutation, extensions: { trace: true } }, { 'x-api-key': 'demo-editor' });
    expect(status).toBe(200);
    const result = JSON.parse(text) as ExecutionResult;
    expect(result.data).toEqual({ addReview: { id: 'r2', stars: 4, book: { title: 'The Dispossessed' } } });
    const traced = traceOf(result);
    checkInvariants(traced);
    expect(traced.resolvers.map(({ path, promise }) => ({ path, promise }))).toEqual([
      { path: 'addReview', promise: true },
      { path: 'addReview.book', promise: false },
    ]);
    expect(traced.plan.operation).toBe('mutation');
  });

  it('writes a traced result as JSON.stringify does, also for a small result whose untraced answers a generated writer writes', async () => {
    const handler = demoHandler();
    const query = '{ book(id: "b3") { title genre published } }';
    for (let i = 0; i < 20; i++) await post(handler, { query });
    const { text } = await post(handler, { query, extensions: { trace: true } });
    expect(text).toBe(JSON.stringify(JSON.parse(text)));
    expect(traceOf(JSON.parse(text)).plan.jsonWriter).toBe(true);
  });

  it('answers untraced requests byte for byte as before, whatever traced requests came between (no cache is poisoned)', async () => {
    // Small (the generated writer) and nested (generated field code, loaders), by POST and GET.
    const queries = ['{ book(id: "b3") { title genre author { name } } }', NESTED];
    const untracedOnly = demoHandler();
    const mixed = demoHandler();
    const expected: string[] = [];
    const seen: string[] = [];
    for (let round = 0; round < 40; round++) {
      for (const query of queries) {
        for (const handler of [untracedOnly, mixed]) {
          const answers = handler === untracedOnly ? expected : seen;
          if (handler === mixed) {
            // Traced requests of the same query before, by both methods, every round.
            await post(handler, { query, extensions: { trace: true } });
            await get(handler, { query, extensions: '{"trace":true}' });
          }
          answers.push((await post(handler, { query })).text);
          const viaGet = await get(handler, { query });
          answers.push(`${viaGet.etag} ${viaGet.text}`);
        }
      }
    }
    expect(seen).toEqual(expected);
    // And a traced request as the very first one of a handler changes nothing either.
    const tracedFirst = demoHandler();
    await post(tracedFirst, { query: queries[0], extensions: { trace: true } });
    expect((await post(tracedFirst, { query: queries[0] })).text).toBe(expected[0]);
  });

  it('gives no trace for trace: false, and the same answer as without it', async () => {
    const handler = demoHandler();
    const plain = await post(handler, { query: NESTED });
    const off = await post(handler, { query: NESTED, extensions: { trace: false } });
    expect(off).toEqual(plain);
    expect((JSON.parse(off.text) as ExecutionResult).extensions?.['trace']).toBeUndefined();
  });
});

describe('who may ask for a trace', () => {
  const NOT_ALLOWED = {
    errors: [
      {
        message: 'Execution traces are not available on this server; send the request without "extensions.trace".',
        extensions: { code: 'TRACE_NOT_ALLOWED' },
      },
    ],
  };

  it('refuses traces in production with TRACE_NOT_ALLOWED, by POST and GET, and runs nothing', async () => {
    const data = createDemoData();
    let contexts = 0;
    const handler = createHandler({
      schema: demoSchema,
      production: true,
      context: (_raw, { identity }) => {
        contexts++;
        return createDemoContext(data, identity);
      },
    });
    expect(await post(handler, { query: NESTED, extensions: { trace: true } })).toEqual({ status: 400, text: JSON.stringify(NOT_ALLOWED) });
    const viaGet = await get(handler, { query: NESTED, extensions: '{"trace":true}' });
    expect({ status: viaGet.status, text: viaGet.text }).toEqual({ status: 400, text: JSON.stringify(NOT_ALLOWED) });
    expect(contexts).toBe(0);
    // Not asking, or trace: false, is fine.
    expect((await post(handler, { query: NESTED, extensions: { trace: false } })).status).toBe(200);
  });

  it('gives traces in production when the pipeline option trace is true, and refuses them anywhere when it is false', async () => {
    const allowed = demoHandler({ production: true, trace: true });
    const { status, text } = await post(allowed, { query: NESTED, extensions: { trace: true } });
    expect(status).toBe(200);
    expect(traceOf(JSON.parse(text)).resolvers).toHaveLength(11);

    const refused = demoHandler({ production: false, trace: false });
    expect(await post(refused, { query: NESTED, extensions: { trace: true } })).toEqual({ status: 400, text: JSON.stringify(NOT_ALLOWED) });
  });

  it.each([
    ['"yes"', 'yes', 'a string'],
    ['1', 1, 'a number'],
    ['{}', {}, 'an object'],
    ['[]', [], 'an array'],
    ['null', null, 'null'],
  ])('answers extensions.trace = %s with BAD_REQUEST, naming the member and the type it must have', async (_shown, value, kind) => {
    const expected = { errors: [{ message: `"extensions.trace" must be a boolean, got ${kind}.`, extensions: { code: 'BAD_REQUEST' } }] };
    // Refused whether traces are allowed or not: the request itself is malformed.
    for (const handler of [demoHandler(), demoHandler({ production: true })]) {
      expect(await post(handler, { query: NESTED, extensions: { trace: value } })).toEqual({ status: 400, text: JSON.stringify(expected) });
      const viaGet = await get(handler, { query: NESTED, extensions: JSON.stringify({ trace: value }) });
      expect({ status: viaGet.status, text: viaGet.text }).toEqual({ status: 400, text: JSON.stringify(expected) });
    }
  });
});

describe('a traced operation over the WebSocket and Server-Sent Events', () => {
  let url = '';
  let wsUrl = '';
  let close: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const data = createDemoData();
    const server = createServer({
      schema: demoSchema,
      context: (_raw, { identity }) => createDemoContext(data, identity),
      authenticate: [apiKeyAuth({ keys: [{ id: 'editor', hash: hashApiKey('demo-editor'), roles: ['editor'] }] })],
      production: false,
      log: () => undefined,
    });
    const port = await listenOnLoopback(server);
    url = `http://127.0.0.1:${port}/graphql`;
    wsUrl = `ws://127.0.0.1:${port}/graphql`;
    close = () => closeNow(server);
  });
  afterAll(() => close());

  it('traces a query over a WebSocket', async () => {
    const client = await RawClient.open(wsUrl);
    await client.init();
    client.send({ id: '1', type: 'subscribe', payload: { query: NESTED, extensions: { trace: true } } });
    const next = await client.next();
    expect(next.type).toBe('next');
    const trace = traceOf(next.payload);
    checkInvariants(trace);
    expect(trace.batches.map((batch) => batch.loader)).toEqual(['authorById', 'booksByAuthor']);
    expect((await client.next()).type).toBe('complete');
    client.socket.close();
  });

  it('traces each result of a subscription, over Server-Sent Events, and refuses a malformed flag there too', async () => {
    const stream = await openEventStream(url, { query: 'subscription { reviewAdded(bookId: "b2") { stars book { title author { name } } } }', extensions: { trace: true } });
    // The subscription is live once the server has answered with the stream's headers; then a review comes.
    const added = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'demo-editor' },
      body: JSON.stringify({ query: 'mutation { addReview(review: { bookId: "b2", stars: 5 }) { id } }' }),
    });
    expect(added.status).toBe(200);
    let item = await stream.reader.next(3000);
    while (item !== null && 'comment' in item) item = await stream.reader.next(3000);
    expect(item).not.toBeNull();
    const result = JSON.parse((item as { data: string }).data) as ExecutionResult;
    expect(result.data).toEqual({ reviewAdded: { stars: 5, book: { title: 'The Left Hand of Darkness', author: { name: 'Ursula K. Le Guin' } } } });
    const trace = traceOf(result);
    checkInvariants(trace);
    expect(trace.resolvers.map((resolver) => resolver.path)).toEqual(['reviewAdded', 'reviewAdded.book', 'reviewAdded.book.author']);
    expect(trace.batches.map(({ loader, keys, waiters }) => ({ loader, keys, waiters }))).toEqual([{ loader: 'authorById', keys: ['a1'], waiters: [2] }]);
    expect(trace.plan.operation).toBe('subscription');
    stream.abort();

    const refused = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query: NESTED, extensions: { trace: 'on' } }),
    });
    const refusal = { errors: [{ message: '"extensions.trace" must be a boolean, got a string.', extensions: { code: 'BAD_REQUEST' } }] };
    expect(await refused.text()).toBe(`event: next\ndata: ${JSON.stringify(refusal)}\n\nevent: complete\ndata:\n\n`);
  });
});

describe('execute({ trace: true })', () => {
  it('returns the trace in extensions.trace, and nothing more without it', async () => {
    const result = await execute({ schema: demoSchema, document: parse(NESTED), contextValue: createDemoContext(createDemoData()), trace: true });
    expect(Object.keys(result.extensions ?? {})).toEqual(['trace']);
    checkInvariants(traceOf(result));
    const untraced = await execute({ schema: demoSchema, document: parse(NESTED), contextValue: createDemoContext(createDemoData()) });
    expect(untraced).toEqual({ data: result.data });
  });

  it('lists exactly the batches the batch functions received, with delayed loads, and one entry per resolver call', async () => {
    const context = createContext({ Loader: BatchLoader });
    const result = await execute({ schema: batchingSchema, document: parse(THREE_LEVEL_QUERY), contextValue: context, trace: true });
    const trace = traceOf(result);
    checkInvariants(trace);
    const received = Object.entries(context.batches).flatMap(([loader, batches]) => batches.map((keys) => ({ loader, keys })));
    const traced = trace.batches.map(({ loader, keys }) => ({ loader, keys }));
    expect(traced).toHaveLength(received.length);
    expect(traced).toEqual(expect.arrayContaining(received));
    // Four levels of loaders below publishers: one batch per loader (the fixture's data keeps each under maxBatchSize).
    expect(new Set(traced.map((batch) => batch.loader)).size).toBe(traced.length);
    // Every resolver that loads awaited exactly one batch.
    for (const resolver of trace.resolvers) {
      expect(resolver.batches).toHaveLength(resolver.parentType === 'Query' ? 0 : 1);
    }
  });

  it('counts each resolver call once, lists thrown and rejected calls, caps long key lists and shows odd keys as text', async () => {
    let calls = 0;
    const schema = makeSchema({
      typeDefs: 'type Item { id: Int! twice: Int! fails: Int } type Query { items(n: Int!): [Item!]! thrown: Int rejected: Int odd: Int }',
      resolvers: {
        Query: {
          items: (_: unknown, { n }: { n: number }) => {
            calls++;
            return Array.from({ length: n }, (_, id) => ({ id }));
          },
          thrown: () => {
            calls++;
            throw new Error('thrown');
          },
          rejected: async () => {
            calls++;
            throw new Error('rejected');
          },
          odd: (_: unknown, __: unknown, context: { odd: BatchLoader<object, number> }) => {
            calls++;
            return context.odd.load({ k: 1 });
          },
        },
        Item: {
          twice: (item: { id: number }, _: unknown, context: { twice: BatchLoader<number, number> }) => {
            calls++;
            return context.twice.load(item.id);
          },
          fails: () => {
            calls++;
            return null;
          },
        },
      },
    });
    const contextValue = {
      twice: new BatchLoader(async (keys: ReadonlyArray<number>) => keys.map((key) => key * 2), { name: 'twice' }),
      odd: new BatchLoader(async (keys: ReadonlyArray<object>) => keys.map(() => 1), { name: 'odd', cacheKeyFn: (key) => JSON.stringify(key) }),
    };
    const result = await execute({ schema, document: parse('{ items(n: 150) { id twice fails } thrown rejected odd }'), contextValue, trace: true });
    const trace = traceOf(result);
    checkInvariants(trace);
    expect(trace.resolvers).toHaveLength(calls);
    expect(result.errors?.map((error) => error.message)).toEqual(['thrown', 'rejected']);
    const byPath = new Map(trace.resolvers.map((resolver) => [resolver.path, resolver]));
    expect(byPath.get('thrown')?.promise).toBe(false);
    expect(byPath.get('rejected')?.promise).toBe(true);
    const twice = trace.batches.find((batch) => batch.loader === 'twice');
    expect(twice?.keys).toEqual(Array.from({ length: 100 }, (_, id) => id));
    expect(twice?.keysTruncated).toBe(50);
    expect(twice?.waiters).toHaveLength(150);
    const odd = trace.batches.find((batch) => batch.loader === 'odd');
    expect(odd).toMatchObject({ keys: ['{ k: 1 }'], waiters: [trace.resolvers.findIndex((resolver) => resolver.path === 'odd')] });
    expect('keysTruncated' in (odd as object)).toBe(false);
  });
});

describe('property: tracing changes no result', () => {
  for (const fixture of fixtures) {
    it(`gives the same data and errors traced as untraced, for random operations over ${fixture.name}`, async () => {
      const schema = fixture.run().schema;
      await fc.assert(
        fc.asyncProperty(arbitraryOperation(schema, { intRange: [-2, 6] }), async (operation) => {
          const run = async (trace: boolean) => {
            const { rootValue, contextValue } = fixture.run();
            return execute({
              schema,
              document: parse(operation.document),
              rootValue,
              contextValue,
              variableValues: operation.variables,
              operationName: operation.operationName,
              trace,
            });
          };
          const untraced = await run(false);
          const traced = await run(true);
          const shown = (result: ExecutionResult) => JSON.stringify({ data: result.data, errors: result.errors, hasData: 'data' in result });
          if (shown(traced) !== shown(untraced)) {
            throw new Error(`Tracing changed the result.\n\n${describeOperation(operation)}\n\nuntraced: ${shown(untraced)}\ntraced:   ${shown(traced)}`);
          }
          expect(untraced.extensions).toBeUndefined();
          // A request error (variables) comes before execution: no trace then.
          if ('data' in traced) checkInvariants(traceOf(traced));
        }),
        { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), ...(PATH === undefined ? {} : { path: PATH }) },
      );
    });
  }
});
