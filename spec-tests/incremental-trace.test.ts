/**
 * Incremental delivery measured and traced (execution/incremental/deliveryReport.ts): the actual
 * cost of every part, exactly what the same query inline costs, and the trace of the whole
 * delivery (its parts, its payloads, the payload each resolver call's value went in), both on
 * the last payload's `extensions`; over the executor API in both formats and over HTTP
 * multipart, where the server completes the cost report on the last payload.
 */
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, execute, experimentalExecuteIncrementally, legacyExecuteIncrementally, makeSchema } from '../src/index.ts';
import type { ExecutionTrace, GraphQLServer } from '../src/index.ts';
import { createDemoContext, createDemoData, demoSchema } from '../src/demo/librarySchema.ts';
import { closeNow, listenOnLoopback } from './support/httpServer.ts';

/** Two defers on each streamed book, the first book inline, the second streamed. */
const DEFERRED = `{ books(limit: 2, sort: TITLE) { items @stream(initialCount: 1) { title ... @defer(label: "who") { author { name } } ... @defer(label: "stars") { averageStars } } } }`;
const INLINE = `{ books(limit: 2, sort: TITLE) { items { title author { name } averageStars } } }`;

type Payload = { hasNext?: boolean; pending?: Array<{ id: string }>; extensions?: { cost?: unknown; trace?: ExecutionTrace } };

async function run(format: 'current' | 'legacy', query: string): Promise<Payload[]> {
  const args = { schema: demoSchema, document: parse(query), contextValue: createDemoContext(createDemoData(), null as never), measureCost: true, trace: true };
  const result = (await (format === 'current' ? experimentalExecuteIncrementally(args) : legacyExecuteIncrementally(args))) as {
    initialResult: Payload;
    subsequentResults: AsyncGenerator<Payload>;
  };
  const payloads = [result.initialResult];
  for await (const payload of result.subsequentResults) payloads.push(payload);
  return payloads;
}

/** The deferred fragments and the stream: ids as the current format announces them. */
const PARTS = [
  { id: '0', kind: 'defer', label: 'who', path: 'books.items.0', announcedIn: 0, completedIn: 2, failed: false },
  { id: '1', kind: 'defer', label: 'stars', path: 'books.items.0', announcedIn: 0, completedIn: 3, failed: false },
  { id: '2', kind: 'stream', label: null, path: 'books.items', announcedIn: 0, completedIn: 1, failed: false },
  { id: '3', kind: 'defer', label: 'who', path: 'books.items.1', announcedIn: 1, completedIn: 2, failed: false },
  { id: '4', kind: 'defer', label: 'stars', path: 'books.items.1', announcedIn: 1, completedIn: 4, failed: false },
];

/** Each payload without its time: what it announced, delivered and completed. */
const PAYLOADS = [
  { hasNext: true, pending: ['0', '1', '2'], delivered: [''], completed: [] },
  { hasNext: true, pending: ['3', '4'], delivered: ['books.items.1'], completed: ['2'] },
  { hasNext: true, pending: [], delivered: ['books.items.0', 'books.items.1'], completed: ['0', '3'] },
  { hasNext: true, pending: [], delivered: ['books.items.0'], completed: ['1'] },
  { hasNext: false, pending: [], delivered: ['books.items.1'], completed: ['4'] },
];

/** Each resolver call: where, the payload that delivered its value, the parts it ran for. */
const CALLS = [
  ['books', 0, []],
  ['books.items.0.author', 2, ['0']],
  ['books.items.0.averageStars', 3, ['1']],
  ['books.items.1.author', 2, ['3']],
  ['books.items.1.averageStars', 4, ['4']],
];

function checkTrace(trace: ExecutionTrace): void {
  expect(trace.parts).toEqual(PARTS);
  expect(trace.payloads?.map(({ atNs, ...rest }) => rest)).toEqual(PAYLOADS);
  const times = trace.payloads?.map((payload) => payload.atNs) ?? [];
  expect([...times].sort((a, b) => a - b)).toEqual(times);
  expect(trace.durationNs).toBeGreaterThanOrEqual(times[times.length - 1] as number);
  expect(trace.resolvers.map((call) => [call.path, call.payload, call.parts])).toEqual(CALLS);
  // The batches of the deferred parts are listed too, their waiters the deferred calls (the
  // second book's author is the first's: its load is answered from the loader's cache).
  expect(trace.batches.map((batch) => [batch.loader, batch.keys, batch.waiters])).toEqual([
    ['authorById', ['a2'], [1]],
    ['reviewsByBook', ['b3'], [2]],
    ['reviewsByBook', ['b4'], [4]],
  ]);
}

/**
 * Over HTTP, what one payload holds depends on when the server asks for it (everything ready
 * by then goes together), so the trace is checked against the payloads it came with.
 */
function checkAgainst(trace: ExecutionTrace, payloads: ReadonlyArray<Payload & { completed?: Array<{ id: string }> }>): void {
  expect(trace.payloads?.length).toBe(payloads.length);
  expect(trace.payloads?.map((payload) => payload.pending)).toEqual(payloads.map((payload) => (payload.pending ?? []).map((part) => part.id)));
  expect(trace.payloads?.map((payload) => payload.completed)).toEqual(payloads.map((payload) => (payload.completed ?? []).map((part) => part.id)));
  expect(trace.parts?.map(({ completedIn, ...part }) => part)).toEqual(PARTS.map(({ completedIn, ...part }) => part));
  for (const part of trace.parts ?? []) expect(trace.payloads?.[part.completedIn as number]?.completed).toContain(part.id);
  expect(trace.resolvers.map((call) => [call.path, call.parts])).toEqual(CALLS.map(([path, , parts]) => [path, parts]));
  // Each call's payload delivered the data at (or above) its path, for a part it ran for.
  for (const call of trace.resolvers) {
    const payload = trace.payloads?.[call.payload as number];
    expect(payload?.delivered.some((path) => path === '' || call.path.startsWith(`${path}.`))).toBe(true);
    for (const id of call.parts ?? []) expect(trace.parts?.find((part) => part.id === id)?.completedIn).toBe(call.payload);
  }
}

describe('the executor API', () => {
  it('a deferred and streamed query costs what the same query inline costs, reported on the last payload', async () => {
    const inline = await execute({ schema: demoSchema, document: parse(INLINE), contextValue: createDemoContext(createDemoData(), null as never), measureCost: true });
    expect(inline.extensions).toEqual({ cost: { actual: 4 } });
    for (const format of ['current', 'legacy'] as const) {
      const payloads = await run(format, DEFERRED);
      expect(payloads.length).toBe(5);
      expect(payloads.slice(0, -1).map((payload) => payload.extensions)).toEqual([undefined, undefined, undefined, undefined]);
      expect(payloads[4]?.hasNext).toBe(false);
      expect(payloads[4]?.extensions?.cost).toEqual({ actual: 4 });
    }
  });

  it('current format: the trace on the last payload lists the parts (ids as in pending), the payloads, and the payload of each call', async () => {
    const payloads = await run('current', DEFERRED);
    const announced = payloads.map((payload) => (payload.pending ?? []).map((part) => part.id));
    expect(announced).toEqual(PAYLOADS.map((payload) => payload.pending));
    checkTrace(payloads[4]?.extensions?.trace as ExecutionTrace);
  });

  it('2022 format: the same parts and payloads, numbered the same way', async () => {
    const payloads = await run('legacy', DEFERRED);
    checkTrace(payloads[4]?.extensions?.trace as ExecutionTrace);
  });

  it('the plan part: no plain reads and no generated code in an incremental delivery (each object is split first)', async () => {
    const payloads = await run('current', DEFERRED);
    const sets = (payloads[4]?.extensions?.trace as ExecutionTrace).plan.selectionSets;
    expect(sets.find((set) => set.path === 'books.items')).toEqual({
      path: 'books.items',
      type: 'Book',
      mode: 'interpreted',
      fields: ['title', 'author', 'averageStars'],
      resolvers: ['author', 'averageStars'],
      plainReads: [],
      merged: [],
      denied: [],
    });
  });

  it('nothing deferred after all (if: false): one result, with its cost and a trace without parts', async () => {
    const query = DEFERRED.replaceAll('@defer(', '@defer(if: false, ').replace('@stream(', '@stream(if: false, ');
    const result = (await experimentalExecuteIncrementally({
      schema: demoSchema,
      document: parse(query),
      contextValue: createDemoContext(createDemoData(), null as never),
      measureCost: true,
      trace: true,
    })) as { data: unknown; extensions: { cost: unknown; trace: ExecutionTrace } };
    expect('initialResult' in result).toBe(false);
    expect(result.extensions.cost).toEqual({ actual: 4 });
    expect(result.extensions.trace.parts).toBeUndefined();
    expect(result.extensions.trace.resolvers.map((call) => call.path)).toEqual([
      'books',
      'books.items.0.author',
      'books.items.0.averageStars',
      'books.items.1.author',
      'books.items.1.averageStars',
    ]);
  });

  it('untraced and unmeasured: no extensions on any payload', async () => {
    const result = (await experimentalExecuteIncrementally({ schema: demoSchema, document: parse(DEFERRED), contextValue: createDemoContext(createDemoData(), null as never) })) as {
      initialResult: Payload;
      subsequentResults: AsyncGenerator<Payload>;
    };
    const payloads = [result.initialResult];
    for await (const payload of result.subsequentResults) payloads.push(payload);
    expect(payloads.map((payload) => payload.extensions)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });
});

describe('over HTTP multipart, a server with trace: true', () => {
  let server: GraphQLServer;
  let url: string;
  beforeAll(async () => {
    const data = createDemoData();
    server = createServer({ schema: demoSchema, context: () => createDemoContext(data, null as never), trace: true, log: () => undefined, graphiql: false });
    url = `http://127.0.0.1:${await listenOnLoopback(server)}/graphql`;
  });
  afterAll(() => closeNow(server));

  async function multipart(accept: string): Promise<Payload[]> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify({ query: DEFERRED, extensions: { trace: true } }),
    });
    expect(response.headers.get('content-type')).toBe('multipart/mixed; boundary="-"');
    const text = await response.text();
    expect(text.endsWith('\r\n-----\r\n')).toBe(true);
    return text
      .split('\r\n---')
      .slice(1, -1)
      .map((part) => JSON.parse(part.slice(part.indexOf('\r\n\r\n') + 4)) as Payload);
  }

  for (const [format, accept] of [
    ['current', 'multipart/mixed; incrementalSpec=v0.2'],
    ['2022', 'multipart/mixed; deferSpec=20220824'],
  ] as const) {
    it(`${format} format: requested and limit on the first payload, the whole report and the trace on the last`, async () => {
      const payloads = await multipart(accept);
      expect(payloads[0]?.extensions).toEqual({ cost: { requested: 4, limit: 1000 } });
      for (const payload of payloads.slice(1, -1)) expect(payload.extensions).toBeUndefined();
      const last = payloads[payloads.length - 1] as Payload;
      expect(last.hasNext).toBe(false);
      expect(Object.keys(last.extensions ?? {})).toEqual(['cost', 'trace']);
      expect(last.extensions?.cost).toEqual({ requested: 4, actual: 4, limit: 1000 });
      const trace = last.extensions?.trace as ExecutionTrace;
      if (format === 'current') checkAgainst(trace, payloads);
      else checkAgainst(trace, trace.payloads?.map((payload) => ({ pending: payload.pending.map((id) => ({ id })), completed: payload.completed.map((id) => ({ id })) })) ?? []);
      expect(trace.payloads?.length).toBe(payloads.length);
    });
  }
});

describe('a part that fails', () => {
  it('its calls were never delivered (payload null), the part is failed, and its fields still count in the cost', async () => {
    const schema = makeSchema({
      typeDefs: 'type Query { ok: String, slow: Thing! } type Thing { name: String! }',
      resolvers: { Query: { ok: () => 'ok', slow: async () => ({}) }, Thing: { name: () => Promise.reject(new Error('no name')) } },
      incremental: true,
    });
    const result = (await experimentalExecuteIncrementally({ schema, document: parse('{ ok ... @defer(label: "d") { slow { name } } }'), measureCost: true, trace: true })) as {
      initialResult: Payload;
      subsequentResults: AsyncGenerator<Payload & { completed?: Array<{ id: string; errors?: unknown[] }> }>;
    };
    const payloads: Array<Payload & { completed?: Array<{ id: string; errors?: unknown[] }> }> = [result.initialResult];
    for await (const payload of result.subsequentResults) payloads.push(payload);
    const last = payloads[payloads.length - 1];
    expect(last?.completed?.[0]?.errors?.length).toBe(1);
    // What the same query inline costs (Query.slow weighs 1, the scalars nothing): the failed part's fields ran, and count.
    const inline = await execute({ schema, document: parse('{ ok slow { name } }'), measureCost: true });
    expect(inline.extensions).toEqual({ cost: { actual: 1 } });
    expect(last?.extensions?.cost).toEqual({ actual: 1 });
    const trace = last?.extensions?.trace as ExecutionTrace;
    expect(trace.parts).toEqual([{ id: '0', kind: 'defer', label: 'd', path: '', announcedIn: 0, completedIn: 1, failed: true }]);
    expect(trace.payloads?.map(({ atNs, ...rest }) => rest)).toEqual([
      { hasNext: true, pending: ['0'], delivered: [''], completed: [] },
      { hasNext: false, pending: [], delivered: [], completed: ['0'] },
    ]);
    expect(trace.resolvers.map((call) => [call.path, call.payload, call.parts])).toEqual([
      ['ok', 0, []],
      ['slow', null, ['0']],
      ['slow.name', null, ['0']],
    ]);
  });
});
