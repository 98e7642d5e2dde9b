/**
 * The validation worker (src/server/validationThread.ts): new documents of 1,024 characters or
 * more are validated in a worker thread, and the answer is exactly the one validation in the
 * event loop's thread gives (the property test of portableValidation.ts holds that for generated
 * documents; here, end to end through the pipeline). Also: documents wait by client, round-robin;
 * a worker that cannot start leaves every document validated in place; a subscriber to
 * graphql:validate sees validation where it runs; close() stops the worker.
 */
import { tracingChannel } from 'node:diagnostics_channel';
import { readFileSync, readdirSync } from 'node:fs';
import { GraphQLScalarType, Kind } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { createHandler, makeSchema } from '../src/index.ts';
import { portableSchema } from '../src/language/portableValidation.ts';
import { OFFLOAD_CHARACTERS, ValidationThread } from '../src/server/validationThread.ts';

const DateScalar = new GraphQLScalarType({
  name: 'Date',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (node) => {
    if (node.kind !== Kind.STRING || !/^\d{4}-\d\d-\d\d$/.test(node.value)) throw new TypeError('A Date is written YYYY-MM-DD.');
    return node.value;
  },
});

const schema = makeSchema({
  typeDefs: `
    scalar Date
    type Viewer { id: ID! name: String tags: [String!]! }
    type Query { me: Viewer on(day: Date!): Viewer books(first: Int = 3): [Viewer!]! }
  `,
  resolvers: { Date: DateScalar, Query: { me: () => ({ id: '1', name: 'Ada', tags: [] }), on: () => null, books: () => [] } },
});

/** A document of at least OFFLOAD_CHARACTERS: `me` repeated, then `tail`. */
const large = (tail: string, name = 'Q') => `query ${name} { ${'me { id name tags } '.repeat(Math.ceil(OFFLOAD_CHARACTERS / 20))} ${tail} }`;

type Handle = ReturnType<typeof createHandler>;
const handles: Handle[] = [];
function handler(options: { validationThread?: boolean } = {}): Handle {
  const handle = createHandler({ schema, ...options });
  handles.push(handle);
  return handle;
}
afterEach(async () => {
  await Promise.all(handles.splice(0).map((handle) => handle.pipeline.close()));
});

const post = async (handle: Handle, query: string) => {
  const [body, init] = await handle({
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query }),
    raw: null,
  });
  return { status: init.status, body: JSON.parse(String(body)) as unknown };
};

describe('the validation worker', () => {
  const documents = [
    large(''),
    large('me { nope } on(day: "2024-02-30x") { id } books(first: "three") { id }'),
    large('x: me { id } x: books { id } on { id }'),
    `query ($d: Date = "yesterday", $unused: Int) { ${'me { id name tags } '.repeat(60)} on(day: $d) { name } }`,
    large(Array.from({ length: 120 }, (_, i) => `f${i}: nope${i}`).join(' ')),
  ];

  it('validates new documents of 1,024 characters or more, and answers exactly as validation in place does', async () => {
    const worker = handler();
    const inPlace = handler({ validationThread: false });
    for (const query of documents) {
      expect(query.length).toBeGreaterThanOrEqual(OFFLOAD_CHARACTERS);
      expect(await post(worker, query)).toEqual(await post(inPlace, query));
    }
    expect(worker.pipeline.cacheCounts).toMatchObject({ validatedInWorker: documents.length, validatedHere: 0 });
    expect(inPlace.pipeline.cacheCounts).toMatchObject({ validatedInWorker: 0, validatedHere: documents.length });
  });

  it('answers with the errors of every rule, custom scalars judged by their own code, in validate()\'s order', async () => {
    const query = large('on(day: "1st of May") { nope } books(first: "three") { id }');
    const { status, body } = await post(handler(), query);
    expect(status).toBe(400);
    const messages = (body as { errors: Array<{ message: string }> }).errors.map((error) => error.message);
    expect(messages).toHaveLength(3);
    // The Date scalar's own message (its code ran in this thread), then the field, then the Int.
    expect(messages[0]).toContain('A Date is written YYYY-MM-DD.');
    expect(messages[1]).toBe('Cannot query field "nope" on type "Viewer". Did you mean "name"?');
    expect(messages[2]).toContain('"three"');
    expect(body).toEqual((await post(handler({ validationThread: false }), query)).body);
  });

  it('validates shorter documents in place, and documents seen before not at all', async () => {
    const handle = handler();
    await post(handle, '{ me { id } }');
    await post(handle, large(''));
    await post(handle, large(''));
    expect(handle.pipeline.cacheCounts).toMatchObject({ validatedHere: 1, validatedInWorker: 1, documentHits: 1 });
  });

  it('validates in place while something subscribes to graphql:validate, so that it sees the validation', async () => {
    const handle = handler();
    const seen: unknown[] = [];
    const channel = tracingChannel('graphql:validate');
    const subscriber = { start: (context: object) => seen.push(context), end() {}, asyncStart() {}, asyncEnd() {}, error() {} };
    channel.subscribe(subscriber);
    try {
      await post(handle, large(''));
    } finally {
      channel.unsubscribe(subscriber);
    }
    expect(seen).toHaveLength(1);
    expect(handle.pipeline.cacheCounts).toMatchObject({ validatedHere: 1, validatedInWorker: 0 });
  });

  it('is stopped by the pipeline\'s close(): documents after it are validated in place, with the same answers', async () => {
    const handle = handler();
    await post(handle, large('', 'First'));
    await handle.pipeline.close();
    const answer = await post(handle, large('me { nope }', 'Second'));
    expect(answer).toEqual(await post(handler({ validationThread: false }), large('me { nope }', 'Second')));
    expect(handle.pipeline.cacheCounts).toMatchObject({ validatedInWorker: 1, validatedHere: 1 });
  });
});

describe('ValidationThread', () => {
  const portable = portableSchema(schema);
  const start = () => new ValidationThread({ schema: portable!, noIntrospection: false, hideSuggestions: true });
  const threads: ValidationThread[] = [];
  afterEach(async () => {
    await Promise.all(threads.splice(0).map((thread) => thread.close()));
  });

  it('takes the documents waiting one from each client in turn, so a client that sends many waits behind its own', async () => {
    const thread = start();
    threads.push(thread);
    const order: string[] = [];
    const ask = (client: string, name: string) => thread.validate(client, large('', name)).then((found) => order.push(`${client}:${name}`) && found);
    const answers = await Promise.all([ask('a', 'A1'), ask('a', 'A2'), ask('a', 'A3'), ask('b', 'B1'), ask('c', 'C1'), ask('b', 'B2')]);
    // A1 was sent at once; then one from each client with texts waiting, in the order they came.
    expect(order).toEqual(['a:A1', 'a:A2', 'b:B1', 'c:C1', 'a:A3', 'b:B2']);
    for (const found of answers) expect(found).toEqual({ errors: [], customLiterals: false });
  });

  it.runIf(process.platform === 'linux')('runs its worker at nice 10 on Linux, the event loop\'s thread keeping the process\'s priority', async () => {
    const thread = start();
    threads.push(thread);
    await thread.validate('a', large(''));
    /** Each thread's nice value (field 19 of /proc/<pid>/task/<tid>/stat). */
    const nice = (tid: string) => {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    };
    const threadsNice = readdirSync('/proc/self/task').map((tid) => ({ tid, nice: nice(tid) }));
    // At least this one (workers of other servers in this process may be alive too).
    expect(threadsNice.filter((each) => each.nice === 10).length).toBeGreaterThanOrEqual(1);
    expect(nice(String(process.pid))).toBe(0);
  });

  it('validates a text asked for twice while it waits once', async () => {
    const thread = start();
    threads.push(thread);
    const text = large('me { nope }');
    const [first, second] = [thread.validate('a', text), thread.validate('b', text)];
    expect(second).toBe(first);
    const found = await first;
    expect(found !== null && found !== undefined && 'errors' in found ? found.errors.map((error) => error.message) : found).toEqual(['Cannot query field "nope" on type "Viewer".']);
  });

  it('answers undefined (validate in place) when its worker cannot start, for the text waiting and every one after', async () => {
    const thread = new ValidationThread({ schema: { sdl: 'type Query {', customScalars: [] }, noIntrospection: false, hideSuggestions: false });
    threads.push(thread);
    expect(await thread.validate('a', large(''))).toBeUndefined();
    expect(thread.available).toBe(false);
    expect(await thread.validate('a', large('', 'Again'))).toBeUndefined();
  });

  it('replaces a worker that stopped after answering: the text it was on is validated in place, the next by a new worker', async () => {
    const thread = start();
    threads.push(thread);
    expect(await thread.validate('a', large('', 'One'))).toEqual({ errors: [], customLiterals: false });
    const worker = (thread as unknown as { worker: { terminate(): Promise<number> } }).worker;
    const cut = thread.validate('a', large('', 'Two'));
    await worker.terminate();
    expect(await cut).toBeUndefined();
    expect(thread.available).toBe(true);
    expect(await thread.validate('a', large('', 'Three'))).toEqual({ errors: [], customLiterals: false });
    expect((thread as unknown as { worker: unknown }).worker).not.toBe(worker);
  });

  it('answers undefined for texts waiting when it is closed', async () => {
    const thread = start();
    const waiting = [thread.validate('a', large('', 'One')), thread.validate('a', large('', 'Two'))];
    await thread.close();
    expect(await Promise.all(waiting)).toEqual([undefined, undefined]);
  });
});
