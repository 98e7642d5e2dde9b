/**
 * `npm run explain` (src/demo/explain.ts) and `explainOperation` (src/execution/explain.ts): the
 * exact tree printed for a small query, the JSON form, the exit codes, one run of the real
 * command, that explaining leaves the executor's cached plans alone, and that the demo's declared
 * loaders predict the batches a traced execution really sends.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { parse } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { execute, explainOperation, formatExplanation, makeSchema } from '../src/index.ts';
import type { ExecutionTrace, Explanation } from '../src/index.ts';
import { DEMO_LOADERS, USAGE, runExplain } from '../src/demo/explain.ts';
import { byMajor } from './support/graphqlMajor.ts';
import { createDemoContext, createDemoData, demoSchema } from '../src/demo/librarySchema.ts';

const SMALL = '{ book(id: "b1") { title ... on Book { title } author { name } reviews { stars } } }';

describe('npm run explain', () => {
  it('prints the plan of a small query as a tree, with the cost analysis and the rounds of batches', () => {
    const { stdout, stderr, code } = runExplain([SMALL]);
    expect({ stderr, code }).toEqual({ stderr: '', code: 0 });
    expect(stdout).toBe(
      [
        'query (anonymous)',
        'cost 3 · depth 3 · nodes 10 · fields 7 · aliases 0 · directives 0',
        '',
        'plan: each field, how it is resolved, and its cost per parent object',
        'Query',
        '└─ book: Book · resolver · weight 1 · cost 3',
        '   Book · from fragments: ... on Book',
        '   ├─ title: String! · plain read · merged from 2 selections · weight 0 · cost 0',
        '   ├─ author: Author! · resolver, batched by authorById · weight 1 · cost 1',
        '   │  Author',
        '   │  └─ name: String! · plain read · weight 0 · cost 0',
        '   └─ reviews: [Review!]! · resolver, batched by reviewsByBook · list of 10 · weight 1 · cost 1',
        '      Review',
        '      └─ stars: Int! · plain read · weight 0 · cost 0',
        '',
        'batches: one per loader and level; a level is sent when the one above has answered:',
        '  level 1: authorById for book.author; reviewsByBook for book.reviews',
        '',
        'speed-ups (the result is the same without them):',
        '  generated code after 32 objects: Book at book, Author at book.author, Review at book.reviews',
        '  field by field: Query (the root always is)',
        '  response text by JSON.stringify (the result has lists)',
        '',
        'resolver: its resolver is called · plain read: the value is read off the parent object, no call ·',
        'default resolver: read off the parent object, then completed (an object, a list, a custom scalar);',
        'cost of a field = weight + list size × cost of its selection, per parent object.',
        '',
      ].join('\n'),
    );
  });

  it('prints the same as JSON with --json', () => {
    const { stdout, code } = runExplain([SMALL, '--json']);
    expect(code).toBe(0);
    const explained = JSON.parse(stdout) as Explanation;
    expect(Object.keys(explained)).toEqual(['operation', 'name', 'analysis', 'jsonWriter', 'root', 'batching']);
    expect(explained.analysis).toEqual({ depth: 3, cost: 3, nodes: 10, aliases: 0, directives: 0, fields: 7, incremental: 0 });
    expect(explained.batching).toEqual([{ round: 1, loaders: [{ loader: 'authorById', paths: ['book.author'] }, { loader: 'reviewsByBook', paths: ['book.reviews'] }] }]);
    const book = explained.root.fields[0];
    expect(book).toMatchObject({ responseName: 'book', type: 'Book', kind: 'resolver', list: false, nonNull: false, weight: 1, cost: 3, listSize: null });
    const [set] = book?.selectionSets ?? [];
    expect(set).toMatchObject({ path: 'book', type: 'Book', mode: 'generated', why: 'after 32 objects', fragments: ['... on Book'] });
    expect(set?.fields.map(({ responseName, kind, merged, list, nonNull, loader }) => ({ responseName, kind, merged, list, nonNull, loader }))).toEqual([
      { responseName: 'title', kind: 'plainRead', merged: 2, list: false, nonNull: true, loader: undefined },
      { responseName: 'author', kind: 'resolver', merged: 1, list: false, nonNull: true, loader: 'authorById' },
      { responseName: 'reviews', kind: 'resolver', merged: 1, list: true, nonNull: true, loader: 'reviewsByBook' },
    ]);
  });

  it('prints the validation errors of a bad query and exits 1; exits 2 with the usage without a query', () => {
    expect(runExplain(['{ book { nope } }'])).toEqual({
      stdout: '',
      stderr: byMajor({
        16: '1:10 Cannot query field "nope" on type "Book".\n1:3 Field "book" argument "id" of type "ID!" is required, but it was not provided.\n',
        17: '1:10 Cannot query field "nope" on type "Book".\n1:3 Argument "Query.book(id:)" of type "ID!" is required, but it was not provided.\n',
      }),
      code: 1,
    });
    expect(runExplain(['{ book('])).toMatchObject({ stdout: '', code: 1, stderr: '1:8 Syntax Error: Expected Name, found <EOF>.\n' });
    const usage = runExplain([]);
    expect(usage).toEqual({ stdout: '', stderr: `${USAGE}\n`, code: 2 });
    expect(usage.stderr).toMatch(/^usage: npm run explain -- '<query>' \[--json\] \[--operation NAME\] \[--variables JSON\]\n/);
    expect(runExplain([SMALL, '--bogus'])).toEqual({ stdout: '', stderr: `Unknown argument --bogus.\n\n${USAGE}\n`, code: 2 });
    expect(runExplain(['-x', SMALL])).toEqual({ stdout: '', stderr: `Unknown argument -x.\n\n${USAGE}\n`, code: 2 });
  });

  it('prints the usage on stdout and exits 0 with --help or -h, whatever else is given', () => {
    expect(runExplain(['--help'])).toEqual({ stdout: `${USAGE}\n`, stderr: '', code: 0 });
    expect(runExplain([SMALL, '-h'])).toEqual({ stdout: `${USAGE}\n`, stderr: '', code: 0 });
    expect(USAGE).toContain('  --help, -h         print this\n');
  });

  it('runs as a command: the tree on stdout and exit 0; a bad query exits 1; --help exits 0, an unknown argument 2', async () => {
    const run = promisify(execFile);
    // Each run is a process of its own: the four go at once (a cold tsx start is slow on a busy machine).
    const command = (arg: string) =>
      run(process.execPath, ['--import', 'tsx', 'src/demo/explain.ts', arg], { cwd: process.cwd() }).then(
        ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
        (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
      );
    const [explained, failed, help, unknown] = await Promise.all([command(SMALL), command('{ zzz }'), command('--help'), command('--nope')]);
    expect(explained).toEqual({ code: 0, stdout: runExplain([SMALL]).stdout, stderr: '' });
    expect(failed).toEqual({ code: 1, stdout: '', stderr: '1:3 Cannot query field "zzz" on type "Query".\n' });
    expect(help).toEqual({ code: 0, stdout: `${USAGE}\n`, stderr: '' });
    expect(unknown).toEqual({ code: 2, stdout: '', stderr: `Unknown argument --nope.\n\n${USAGE}\n` });
  }, 60_000);
});

describe('explainOperation', () => {
  it('explains variables, aliases, abstract types and named fragments, and leaves the executor’s plans alone', async () => {
    const document = parse(`
      query Find($text: String!, $withTitle: Boolean = true) {
        found: search(text: $text) { __typename ...Named ... on Book { title @include(if: $withTitle) } }
      }
      fragment Named on Author { name }
    `);
    const explained = explainOperation(demoSchema, document, 'Find', { variables: { text: 'a' } });
    if ('errors' in explained) throw new Error(explained.errors.join('\n'));
    expect(explained.batching).toBeNull();
    const found = explained.root.fields[0];
    expect(found).toMatchObject({ responseName: 'found', fieldName: 'search', type: '[SearchResult!]!', list: true, listSize: 20 });
    expect(found?.selectionSets.map(({ type, mode, why, fragments, fields }) => ({ type, mode, why, fragments, fields: fields.map((field) => `${field.responseName}:${field.kind}`) }))).toEqual([
      { type: 'Author', mode: 'interpreted', why: 'its fields are chosen per request by @skip/@include variables', fragments: ['Named'], fields: ['__typename:typename', 'name:plainRead'] },
      { type: 'Book', mode: 'interpreted', why: 'its fields are chosen per request by @skip/@include variables', fragments: ['... on Book'], fields: ['__typename:typename', 'title:plainRead'] },
    ]);
    // Executing afterwards plans afresh: the executor's Author plan has no selection sets yet from explaining.
    const result = await execute({ schema: demoSchema, document, operationName: 'Find', variableValues: { text: 'sagan' }, contextValue: createDemoContext(createDemoData()), trace: true });
    const trace = (result as ExecutionResult).extensions?.['trace'] as ExecutionTrace;
    expect(trace.plan.selectionSets.map((set) => `${set.path}:${set.type}`)).toEqual([':Query', 'found:Author']);
    expect(explainOperation(demoSchema, document, 'Find')).toMatchObject({
      errors: [
        {
          message: byMajor({
            16: 'Variable "$text" of required type "String!" was not provided.',
            17: 'Variable "$text" has invalid value: Expected a value of non-null type "String!" to be provided.',
          }),
        },
      ],
    });
  });

  it('says why a selection set is interpreted: no plain reads', () => {
    const schema = makeSchema({ typeDefs: 'type T { a: Int } type Query { t: T }', resolvers: { T: { a: () => 1 } } });
    const explained = explainOperation(schema, parse('{ t { a } }'));
    if ('errors' in explained) throw new Error('unexpected errors');
    expect(explained.root.fields[0]?.selectionSets[0]).toMatchObject({ mode: 'interpreted', why: 'no plain reads' });
    expect(explained.jsonWriter.generated).toBe(true);
  });

  it('predicts, from the demo’s declared loaders, the batches a traced execution sends, round by round', async () => {
    // b3 (by a2): round 1 its author and its reviews; round 2 a2's books; round 3 the reviews of b4 (b3's are cached by then).
    const query = '{ books(limit: 1, offset: 2) { items { averageStars author { books { title reviews { stars } } } } } }';
    const explained = explainOperation(demoSchema, parse(query), null, { loaders: DEMO_LOADERS });
    if ('errors' in explained) throw new Error('unexpected errors');
    expect(explained.batching).toEqual([
      { round: 1, loaders: [{ loader: 'reviewsByBook', paths: ['books.items.averageStars'] }, { loader: 'authorById', paths: ['books.items.author'] }] },
      { round: 2, loaders: [{ loader: 'booksByAuthor', paths: ['books.items.author.books'] }] },
      { round: 3, loaders: [{ loader: 'reviewsByBook', paths: ['books.items.author.books.reviews'] }] },
    ]);
    const result = await execute({ schema: demoSchema, document: parse(query), contextValue: createDemoContext(createDemoData()), trace: true });
    const trace = result.extensions?.['trace'] as ExecutionTrace;
    const roundOf = new Map(explained.batching?.flatMap((round) => round.loaders.flatMap((each) => each.paths.map((path) => [`${each.loader} ${path}`, round.round] as const))));
    // Each real batch, by the predicted round of the fields that waited on it.
    const observed = trace.batches.map((batch) => {
      const rounds = new Set(batch.waiters.map((waiter) => roundOf.get(`${batch.loader} ${trace.resolvers[waiter]?.path.replace(/\.\d+/g, '')}`)));
      expect(rounds.size).toBe(1);
      return { round: [...rounds][0], loader: batch.loader, keys: batch.keys };
    });
    expect(observed).toEqual([
      { round: 1, loader: 'reviewsByBook', keys: ['b3'] },
      { round: 1, loader: 'authorById', keys: ['a2'] },
      { round: 2, loader: 'booksByAuthor', keys: ['a2'] },
      { round: 3, loader: 'reviewsByBook', keys: ['b4'] },
    ]);
  });

  it('formats whatever it answers: an operation that cannot run as its errors, each where it is', () => {
    const schema = makeSchema({ typeDefs: 'type Query { a: Int b: Int }', resolvers: { Query: { a: () => 1 } } });
    expect(formatExplanation(explainOperation(schema, parse('{ a\n  nope }')))).toBe(
      'the operation cannot run (1 error):\n  2:3 Cannot query field "nope" on type "Query".',
    );
    expect(formatExplanation(explainOperation(schema, parse('query A { a } query B { b }')))).toBe(
      'the operation cannot run (1 error):\n  Must provide operation name if query contains multiple operations.',
    );
    expect(formatExplanation(explainOperation(schema, parse('{ nope never }')))).toBe(
      'the operation cannot run (2 errors):\n  1:3 Cannot query field "nope" on type "Query".\n  1:8 Cannot query field "never" on type "Query".',
    );
    expect(formatExplanation(explainOperation(schema, parse('{ a }')))).toMatch(/^query \(anonymous\)\n/);
  });
});

describe('incremental delivery in the explanation', () => {
  const DEFERRED = '{ books(limit: 2) { items @stream(initialCount: 1, label: "rest") { title ... @defer(label: "who") { author { name } } ... @defer { averageStars } } } }';

  it('says which fields are inside a deferred fragment (its label and path) and which list is streamed', () => {
    const { stdout, code } = runExplain([DEFERRED]);
    expect(code).toBe(0);
    expect(stdout.split('\n').slice(4, 21).join('\n')).toBe(
      [
        'Query',
        '└─ books: BookPage! · resolver · weight 1 · cost 4',
        '   BookPage',
        '   └─ items: [Book!]! · default resolver · streamed after 1 item "rest" · list of 2 · weight 1 · cost 3',
        '      Book · from fragments: ... (no type condition)',
        '      ├─ title: String! · default resolver · weight 0 · cost 0',
        '      ├─ author: Author! · resolver, batched by authorById · deferred "who" at books.items · weight 1 · cost 1',
        '      │  Author',
        '      │  └─ name: String! · default resolver · weight 0 · cost 0',
        '      └─ averageStars: Float · resolver, batched by reviewsByBook · deferred (no label) at books.items · weight 0 · cost 0',
        '',
        'batches: one per loader and level; a level is sent when the one above has answered:',
        '  level 1: authorById for books.items.author; reviewsByBook for books.items.averageStars',
        '',
        'speed-ups (the result is the same without them):',
        '  field by field: Query (the root always is)',
        '  field by field: BookPage at books, Book at books.items, Author at books.items.author (the operation defers or streams, so each object is split by @defer first)',
      ].join('\n'),
    );
  });

  it('as data: `deferred` on every field delivered with a fragment, `stream` on the streamed list; nothing when if: false', () => {
    const explained = explainOperation(demoSchema, parse(DEFERRED)) as Explanation;
    const items = explained.root.fields[0]?.selectionSets[0]?.fields[0];
    expect(items?.stream).toEqual({ label: 'rest', initialCount: 1 });
    const book = items?.selectionSets[0]?.fields ?? [];
    expect(book.map((field) => [field.responseName, field.deferred])).toEqual([
      ['title', undefined],
      ['author', [{ label: 'who', path: 'books.items' }]],
      ['averageStars', [{ label: null, path: 'books.items' }]],
    ]);
    expect(book[1]?.selectionSets[0]?.fields[0]?.deferred).toEqual([{ label: 'who', path: 'books.items' }]);
    // Asked inline too: not deferred.
    const both = explainOperation(demoSchema, parse('{ book(id: "b1") { title ... @defer { title author { name } } } }')) as Explanation;
    expect(both.root.fields[0]?.selectionSets[0]?.fields.map((field) => [field.responseName, field.deferred])).toEqual([
      ['title', undefined],
      ['author', [{ label: null, path: 'book' }]],
    ]);
    const off = explainOperation(demoSchema, parse('{ books(limit: 2) { items @stream(if: false) { ... @defer(if: false) { title } } } }')) as Explanation;
    const offItems = off.root.fields[0]?.selectionSets[0]?.fields[0];
    expect([offItems?.stream, offItems?.selectionSets[0]?.fields[0]?.deferred]).toEqual([undefined, undefined]);
  });
});
