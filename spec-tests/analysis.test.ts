/**
 * analyze, checkLimits and parseWithLimits, case by case.
 *
 * The exact numbers live in `fixtures/cost/analysis.json`, one operation over the cost fixture
 * per case, each worked out by hand from the definitions in `src/analysis/analyze.ts` (the
 * weights and list sizes are in `fixtures/cost/schema.graphql`). Every case's operation must
 * also pass `validate`, so that no expectation rests on a document a server would reject.
 *
 * The rest of this file is the behaviour around the numbers: choosing the operation, documents
 * whose inlined form is astronomically large or infinite, each limit and its error, and the
 * promise that matters most: a request over a limit runs no resolver at all.
 */
import { readFileSync } from 'node:fs';
import { GraphQLError, getIntrospectionQuery, parse, validate } from 'graphql';
import type { DocumentNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { AnalysisCase } from '../fixtures/cost/case.ts';
import { fixture as cost } from '../fixtures/cost/index.ts';
import type { CostContext } from '../fixtures/cost/index.ts';
import { DEFAULT_LIMITS, analyze, checkBatchSize, checkLimits, execute, parseWithLimits } from '../src/index.ts';
import type { Analysis, Limits } from '../src/index.ts';

const MINIMUM_CASES = 40;

const cases = JSON.parse(readFileSync(new URL('../fixtures/cost/analysis.json', import.meta.url), 'utf8')) as AnalysisCase[];

const schema = cost.run().schema;

/** The parts of a limit error a client relies on. */
function described(error: GraphQLError): { message: string; extensions: Record<string, unknown> } {
  return { message: error.message, extensions: { ...error.extensions } };
}

function codes(errors: readonly GraphQLError[]): unknown[] {
  return errors.map((error) => error.extensions.code);
}

function check(query: string, limits: Partial<Limits>, variableValues?: Record<string, unknown>) {
  return checkLimits({ schema, document: parse(query), limits, variableValues });
}

/** `{ users(max: 1) { friends(max: 1) { ... { name } } } }` with `depth` fields in its longest chain. */
function nestedFriends(depth: number): string {
  let query = 'name';
  for (let level = 1; level < depth - 1; level += 1) {
    query = `friends(max: 1) { ${query} }`;
  }
  return depth === 1 ? '{ level }' : `{ users(max: 1) { ${query} } }`;
}

describe('analyze: exact numbers over the cost fixture', () => {
  it(`holds at least ${MINIMUM_CASES} cases, each a valid operation`, () => {
    expect(cases.length).toBeGreaterThanOrEqual(MINIMUM_CASES);
    for (const testCase of cases) {
      expect(validate(schema, parse(testCase.query)), testCase.name).toEqual([]);
    }
  });

  it.each(cases.map((testCase) => [testCase.name, testCase] as const))('%s', (_name, testCase) => {
    const analysis = analyze({
      schema,
      document: parse(testCase.query),
      variableValues: testCase.variables,
      operationName: testCase.operationName,
      defaultListSize: testCase.defaultListSize,
      introspection: testCase.introspection,
    });
    expect(analysis).toEqual(testCase.expected);
  });
});

describe('analyze: choosing the operation', () => {
  const twoOperations = parse('query A { level } query B { vault { id } }');

  it('throws the request error execute gives for an unknown operation name', () => {
    expect(() => analyze({ schema, document: twoOperations, operationName: 'C' })).toThrow(
      new GraphQLError('Unknown operation named "C".'),
    );
  });

  it('throws the request error execute gives when several operations and no name are given', () => {
    expect(() => analyze({ schema, document: twoOperations })).toThrow(
      new GraphQLError('Must provide operation name if query contains multiple operations.'),
    );
  });

  it('throws the request error execute gives for a document without operations', () => {
    expect(() => analyze({ schema, document: parse('fragment F on Query { level }') })).toThrow(
      new GraphQLError('Must provide an operation.'),
    );
  });

  it('throws a GraphQLError, not another kind of error', () => {
    expect(() => analyze({ schema, document: twoOperations })).toThrow(GraphQLError);
  });
});

describe('analyze: documents far larger once inlined', () => {
  /**
   * `query { ...F1 }`, and each fragment F1 … F(n-1) spreads the next one twice; Fn selects
   * `a: users(max: 2) @include(if: true) { age }`. Fragment Fk is inlined 2^(k-1) times, so the
   * inlined operation holds 2^(n-1) copies of Fn. Merged the way CollectFields merges, they are
   * one field.
   */
  function flatBomb(n: number): DocumentNode {
    const fragments = [];
    for (let k = 1; k < n; k += 1) {
      fragments.push(`fragment F${k} on Query { ...F${k + 1} ...F${k + 1} }`);
    }
    fragments.push(`fragment F${n} on Query { a: users(max: 2) @include(if: true) { age } }`);
    return parse(`query { ...F1 }\n${fragments.join('\n')}`);
  }

  it('reports the exact inlined counts of forty fragments each spreading the next twice, without inlining them', () => {
    const n = 40;
    const copies = 2 ** (n - 1);
    expect(analyze({ schema, document: flatBomb(n) })).toEqual({
      depth: 2,
      cost: 1 + 2 * 2,
      nodes: 2,
      aliases: copies,
      directives: copies,
      fields: 2 * copies,
      incremental: 0,
    });
  }, 5_000);

  /**
   * `{ users(max: 1) { ...F1 } }`, and each fragment Fk (k < n) on User is
   * `friends(max: 1) { ...F(k+1) ...F(k+1) }`; Fn is `name`. The merged operation is a chain of
   * n - 1 `friends` below `users`, so depth, cost and nodes grow by one per fragment, while the
   * inlined operation holds 2^(k-1) copies of the `friends` field of Fk.
   */
  function deepBomb(n: number): DocumentNode {
    const fragments = [];
    for (let k = 1; k < n; k += 1) {
      fragments.push(`fragment F${k} on User { friends(max: 1) { ...F${k + 1} ...F${k + 1} } }`);
    }
    fragments.push(`fragment F${n} on User { name }`);
    return parse(`{ users(max: 1) { ...F1 } }\n${fragments.join('\n')}`);
  }

  it('reports the exact numbers of a fragment bomb nested forty levels deep', () => {
    const n = 40;
    let friends = 0;
    for (let k = 1; k < n; k += 1) {
      friends += 2 ** (k - 1);
    }
    expect(analyze({ schema, document: deepBomb(n) })).toEqual({
      depth: 1 + (n - 1) + 1,
      cost: 1 + (n - 1),
      nodes: 1 + (n - 1),
      aliases: 0,
      directives: 0,
      fields: 1 + friends + 2 ** (n - 1),
      incremental: 0,
    });
  }, 5_000);

  it('terminates on fragments that spread each other in a cycle', () => {
    const document = parse('query { ...A } fragment A on Query { level ...B } fragment B on Query { ...A }');
    const analysis = analyze({ schema, document });
    for (const value of Object.values(analysis)) {
      expect(Number.isFinite(value)).toBe(true);
    }
    expect(analysis.cost).toBeGreaterThanOrEqual(1);
  });

  it('terminates on a fragment that spreads itself beneath one of its fields', () => {
    const document = parse('{ users(max: 2) { ...A } } fragment A on User { name friends(max: 2) { ...A } }');
    const analysis = analyze({ schema, document });
    for (const value of Object.values(analysis)) {
      expect(Number.isFinite(value)).toBe(true);
    }
    expect(analysis.depth).toBeGreaterThanOrEqual(2);
  });
});

describe('checkLimits', () => {
  /** One query per analysis limit, its measure, and the message an exceeded limit gives. */
  const perLimit: ReadonlyArray<{
    limit: 'depth' | 'cost' | 'nodes' | 'aliases' | 'directives';
    code: string;
    query: string;
    measured: number;
    message: (measured: number, limit: number) => string;
  }> = [
    {
      limit: 'depth',
      code: 'DEPTH_LIMIT_EXCEEDED',
      query: nestedFriends(12),
      measured: 12,
      message: (measured, limit) => `Query depth ${measured} exceeds the limit of ${limit}.`,
    },
    {
      limit: 'cost',
      code: 'COST_LIMIT_EXCEEDED',
      query: '{ users(max: 100) { age friends(max: 5) { age } } }',
      measured: 1 + 100 * (2 + 1 + 5 * 2),
      message: (measured, limit) => `Query cost ${measured} exceeds the limit of ${limit}.`,
    },
    {
      limit: 'nodes',
      code: 'NODE_LIMIT_EXCEEDED',
      query: '{ viewer { repositories(first: 50) { edges { node { name issues(first: 10) { edges { node { title } } } } } } } }',
      measured: 550,
      message: (measured, limit) => `Query node count ${measured} exceeds the limit of ${limit}.`,
    },
    {
      limit: 'aliases',
      code: 'ALIAS_LIMIT_EXCEEDED',
      query: `{ ${Array.from({ length: 31 }, (_, index) => `a${index}: level`).join(' ')} }`,
      measured: 31,
      message: (measured, limit) => `Query uses ${measured} aliases; the limit is ${limit}.`,
    },
    {
      limit: 'directives',
      code: 'DIRECTIVE_LIMIT_EXCEEDED',
      query: `{ ${Array.from({ length: 51 }, (_, index) => `a${index}: level @include(if: true)`).join(' ')} }`,
      measured: 51,
      message: (measured, limit) => `Query uses ${measured} directives; the limit is ${limit}.`,
    },
  ];

  for (const { limit, code, query, measured, message } of perLimit) {
    describe(`the ${limit} limit`, () => {
      it(`reports ${code} with the measure and the limit when the ${limit} exceeds it`, () => {
        const { analysis, errors } = check(query, { [limit]: measured - 1 });
        expect(analysis?.[limit]).toBe(measured);
        const exceeded = errors.filter((error) => error.extensions.code === code);
        expect(exceeded.map(described)).toEqual([
          { message: message(measured, measured - 1), extensions: { code, measured, limit: measured - 1 } },
        ]);
      });

      it(`allows a ${limit} equal to the limit`, () => {
        expect(codes(check(query, { [limit]: measured }).errors)).not.toContain(code);
      });

      it(`is switched off by ${limit}: false`, () => {
        expect(codes(check(query, { [limit]: false }).errors)).not.toContain(code);
      });
    });
  }

  it('counts each @defer and @stream that can apply, fragments written out, and refuses past the incremental limit', () => {
    const query = `
      query Parts($later: Boolean!, $never: Boolean!) {
        a: users(max: 2) @stream(initialCount: 1) { age }
        ... @defer(label: "inline") { b: users(max: 1) { age } }
        ...Twice
        ...Twice
        ... @defer(if: false) { c: users(max: 1) { age } }
        ... @defer(if: $never) { d: users(max: 1) { age } }
        ... @defer(if: $later) { e: users(max: 1) { age } }
      }
      fragment Twice on Query { f: users(max: 1) { ... on User @defer { age } } }
    `;
    const document = parse(query);
    const variableValues = { later: true, never: false };
    // @stream, the inline @defer, the fragment's @defer twice, and @defer(if: $later): five.
    expect(analyze({ schema, document, variableValues }).incremental).toBe(5);
    expect(checkLimits({ schema, document, variableValues, limits: { incremental: 5 } }).errors).toEqual([]);
    expect(checkLimits({ schema, document, variableValues, limits: { incremental: 4 } }).errors.map(described)).toEqual([
      { message: 'The operation defers or streams 5 parts; the limit is 4.', extensions: { code: 'INCREMENTAL_LIMIT_EXCEEDED', measured: 5, limit: 4 } },
    ]);
    expect(checkLimits({ schema, document, variableValues, limits: { incremental: false } }).errors).toEqual([]);
  });

  it('uses the default limits when none are given', () => {
    expect(DEFAULT_LIMITS).toEqual({
      depth: expect.any(Number),
      cost: expect.any(Number),
      nodes: expect.any(Number),
      aliases: expect.any(Number),
      directives: expect.any(Number),
      incremental: 32,
      tokens: expect.any(Number),
      documentLength: expect.any(Number),
      batchedOperations: expect.any(Number),
      breadth: expect.any(Number),
      directivesPerNode: expect.any(Number),
      fieldMerges: expect.any(Number),
    });
    const cost = DEFAULT_LIMITS.cost as number;
    const overDefault = `{ users(max: ${cost}) { age } }`;
    const { errors } = checkLimits({ schema, document: parse(overDefault) });
    expect(errors.map(described)).toEqual([
      {
        message: `Query cost ${1 + 2 * cost} exceeds the limit of ${cost}.`,
        extensions: { code: 'COST_LIMIT_EXCEEDED', measured: 1 + 2 * cost, limit: cost },
      },
    ]);
  });

  it('accepts the GitHub example under the default limits and returns its analysis', () => {
    const document = parse('{ viewer { repositories(first: 50) { edges { node { name issues(first: 10) { edges { node { title } } } } } } } }');
    expect(checkLimits({ schema, document })).toEqual({
      analysis: { depth: 8, cost: 653, nodes: 550, aliases: 0, directives: 0, fields: 9, incremental: 0 } satisfies Analysis,
      errors: [],
    });
  });

  it('reports every exceeded limit, one error each', () => {
    const query = `{ ${Array.from({ length: 3 }, (_, index) => `u${index}: users(max: 9) @include(if: true) { friends(max: 9) { age } }`).join(' ')} }`;
    const { analysis, errors } = check(query, { depth: 2, cost: 100, nodes: 200, aliases: 2, directives: 2 });
    expect(analysis).toEqual({ depth: 3, cost: 3 * (1 + 9 * (1 + 9 * 2)), nodes: 3 * (9 + 81), aliases: 3, directives: 3, fields: 9, incremental: 0 });
    expect(codes(errors).sort()).toEqual([
      'ALIAS_LIMIT_EXCEEDED',
      'COST_LIMIT_EXCEEDED',
      'DEPTH_LIMIT_EXCEEDED',
      'DIRECTIVE_LIMIT_EXCEEDED',
      'NODE_LIMIT_EXCEEDED',
    ]);
  });

  it('measures with the variables: a slicing argument from a variable can exceed the cost limit', () => {
    const query = 'query ($n: Int) { users(max: $n) { age } }';
    expect(codes(check(query, { cost: 100 }, { n: 49 }).errors)).toEqual([]);
    expect(codes(check(query, { cost: 100 }, { n: 50 }).errors)).toEqual(['COST_LIMIT_EXCEEDED']);
  });

  it('measures with defaultListSize', () => {
    const document = parse('{ allUsers { age } }');
    expect(checkLimits({ schema, document, limits: { cost: 30 }, defaultListSize: 20 }).errors.map(described)).toEqual([
      { message: 'Query cost 41 exceeds the limit of 30.', extensions: { code: 'COST_LIMIT_EXCEEDED', measured: 41, limit: 30 } },
    ]);
  });

  it('returns the request error, and no analysis, when no operation can be chosen', () => {
    const { analysis, errors } = checkLimits({ schema, document: parse('query A { level } query B { level }') });
    expect(analysis).toBeNull();
    expect(errors.map((error) => error.message)).toEqual(['Must provide operation name if query contains multiple operations.']);
  });

  describe('requireOneSlicingArgument', () => {
    it('reports SLICING_ARGUMENT_REQUIRED when none of the slicing arguments is given', () => {
      const { errors } = check('{ viewer { repositories { totalCount } } }', {});
      expect(errors.map(described)).toEqual([
        {
          message: 'Field "Viewer.repositories" must be given exactly one of its slicing arguments (first, last); it got 0.',
          extensions: { code: 'SLICING_ARGUMENT_REQUIRED' },
        },
      ]);
    });

    it('reports SLICING_ARGUMENT_REQUIRED when the only slicing argument given is a variable left absent', () => {
      const { errors } = check('query ($n: Int) { viewer { repositories(first: $n) { totalCount } } }', {});
      expect(codes(errors)).toEqual(['SLICING_ARGUMENT_REQUIRED']);
    });

    it('accepts exactly one slicing argument, as a literal or as a variable', () => {
      expect(check('{ viewer { repositories(last: 3) { totalCount } } }', {}).errors).toEqual([]);
      expect(check('query ($n: Int) { viewer { repositories(first: $n) { totalCount } } }', {}, { n: 3 }).errors).toEqual([]);
    });

    it('accepts a field whose @listSize sets requireOneSlicingArgument: false without its slicing arguments', () => {
      expect(check('{ page { id } search { __typename } }', {}).errors).toEqual([]);
    });

    it('reports the field once however many times the operation selects it', () => {
      const { errors } = check('{ viewer { a: repositories { totalCount } b: repositories { totalCount } } }', {});
      expect(codes(errors)).toEqual(['SLICING_ARGUMENT_REQUIRED']);
    });

    it('does not check a field that @skip removes', () => {
      expect(check('{ viewer { repositories @skip(if: true) { totalCount } login } }', {}).errors).toEqual([]);
    });
  });

  it('rejects an over-limit query before any resolver runs', async () => {
    /** What a server does: check the limits, and execute only a request within them. */
    async function serve(query: string, limits: Partial<Limits>) {
      const { schema: runSchema, contextValue } = cost.run();
      const document = parse(query);
      const { errors } = checkLimits({ schema: runSchema, document, limits });
      const result = errors.length > 0 ? { errors } : await execute({ schema: runSchema, document, contextValue });
      return { result, calls: (contextValue as CostContext).calls };
    }

    const rejected = await serve('{ users(max: 100) { friends(max: 100) { age } } }', { cost: 1000 });
    expect(codes(rejected.result.errors ?? [])).toEqual(['COST_LIMIT_EXCEEDED']);
    expect(rejected.calls).toEqual([]);

    const accepted = await serve('{ users(max: 2) { friends(max: 1) { age } } }', { cost: 1000 });
    expect(accepted.result).toEqual({ data: { users: [{ friends: [{ age: 21 }] }, { friends: [{ age: 22 }] }] } });
    expect(accepted.calls).toEqual(['Query.users', 'User.friends', 'User.friends']);
  });
});

describe('checkBatchSize', () => {
  it('reports BATCH_LIMIT_EXCEEDED when a batch holds more operations than allowed', () => {
    const error = checkBatchSize(11, { batchedOperations: 10 });
    expect(error && described(error)).toEqual({
      message: 'The request holds 11 operations; the limit is 10.',
      extensions: { code: 'BATCH_LIMIT_EXCEEDED', measured: 11, limit: 10 },
    });
  });

  it('allows a batch of exactly the limit, and any batch when the limit is false', () => {
    expect(checkBatchSize(10, { batchedOperations: 10 })).toBeNull();
    expect(checkBatchSize(1000, { batchedOperations: false })).toBeNull();
  });
});

describe('parseWithLimits', () => {
  /** `{` + (count - 2) field names + `}`: exactly `count` tokens. */
  function tokens(count: number): string {
    return `{ ${'level '.repeat(count - 2)}}`;
  }

  it('parses a document within the limits to the same AST as parse', () => {
    const source = '{ users(max: 2) { age } }';
    expect(parseWithLimits(source)).toEqual({ document: parse(source) });
  });

  it('rejects a 100,000-token document under the default limits with TOKEN_LIMIT_EXCEEDED', () => {
    const source = tokens(100_000);
    const outcome = parseWithLimits(source, { documentLength: false });
    expect('errors' in outcome && outcome.errors.map(described)).toEqual([
      {
        message: `The document has 100000 tokens; the limit is ${String(DEFAULT_LIMITS.tokens)}.`,
        extensions: { code: 'TOKEN_LIMIT_EXCEEDED', measured: 100_000, limit: DEFAULT_LIMITS.tokens },
      },
    ]);
  });

  it('allows a document of exactly the token limit, and any number of tokens when the limit is false', () => {
    // One wide selection set of one repeated field: the shape limits are not what is tested here.
    const shapeless = { breadth: false, fieldMerges: false } as const;
    expect(parseWithLimits(tokens(1000), { tokens: 1000, ...shapeless })).toHaveProperty('document');
    expect(parseWithLimits(tokens(1001), { tokens: 1000, ...shapeless })).toHaveProperty('errors');
    expect(parseWithLimits(tokens(100_000), { tokens: false, documentLength: false, ...shapeless })).toHaveProperty('document');
  });

  it('refuses before validation a selection set wider than breadth, with BREADTH_LIMIT_EXCEEDED', () => {
    const wide = `{ ${Array.from({ length: 12 }, (_, i) => `f${i}: level`).join(' ')} }`;
    expect(parseWithLimits(wide, { breadth: 12 })).toHaveProperty('document');
    const outcome = parseWithLimits(wide, { breadth: 11 });
    expect('errors' in outcome && outcome.errors.map(described)).toEqual([
      { message: 'A selection set lists 12 selections; the limit is 11.', extensions: { code: 'BREADTH_LIMIT_EXCEEDED', measured: 12, limit: 11 } },
    ]);
  });

  it('refuses a field or fragment with more than directivesPerNode directives, with DIRECTIVE_LIMIT_EXCEEDED', () => {
    const source = '{ a: level @skip(if: false) @include(if: true) @skip(if: false) ... @include(if: true) { level } }';
    expect(parseWithLimits(source, { directivesPerNode: 3 })).toHaveProperty('document');
    const outcome = parseWithLimits(source, { directivesPerNode: 2 });
    expect('errors' in outcome && outcome.errors.map(described)).toEqual([
      { message: 'A field or fragment carries 3 directives; the limit is 2.', extensions: { code: 'DIRECTIVE_LIMIT_EXCEEDED', measured: 3, limit: 2 } },
    ]);
  });

  it('counts as fieldMerges the pairs of fields sharing a response name in a selection set, inline fragments and spread fragments included', () => {
    // Under t: four "x" (two written, one in an inline fragment, one from F) make 6 pairs; F's own set adds none.
    const source = 'query { t { x: level x: level ... on T { x: level } ...F } } fragment F on T { x: level y: level }';
    expect(parseWithLimits(source, { fieldMerges: 6 })).toHaveProperty('document');
    const outcome = parseWithLimits(source, { fieldMerges: 5 });
    expect('errors' in outcome && outcome.errors.map(described)).toEqual([
      {
        message: 'The document merges 6 pairs of fields and fragments in its selection sets; the limit is 5.',
        extensions: { code: 'FIELD_MERGE_LIMIT_EXCEEDED', measured: 6, limit: 5 },
      },
    ]);
  });

  it('counts a fragment spread many times in one set at every spread, pairs of distinct fragments, and a fragment bomb without writing it out', () => {
    const spreads = `{ t { ${'...F '.repeat(30)}} } fragment F on T { level }`;
    // 30 spreads of F, each bringing "level": 435 pairs (one fragment: no pair of fragments).
    const repeated = parseWithLimits(spreads, { fieldMerges: 434 });
    expect('errors' in repeated && repeated.errors.map((error) => error.extensions['measured'])).toEqual([435]);
    const distinct = `{ t { ${Array.from({ length: 10 }, (_, i) => `...F${i}`).join(' ')} } } ${Array.from({ length: 10 }, (_, i) => `fragment F${i} on T { f${i}: level }`).join(' ')}`;
    // 10 fragments with names of their own: 45 pairs of fragments.
    const pairs = parseWithLimits(distinct, { fieldMerges: 44 });
    expect('errors' in pairs && pairs.errors.map((error) => error.extensions['measured'])).toEqual([45]);
    const bomb = ['fragment F0 on T { a: level b: level }']
      .concat(Array.from({ length: 40 }, (_, i) => `fragment F${i + 1} on T { x: t { ...F${i} } y: t { ...F${i} } }`))
      .join(' ');
    // 2^40 fields once written out: each fragment's names are counted once, so this answers.
    expect(parseWithLimits(`{ t { ...F40 } } ${bomb}`)).toHaveProperty('document');
  });

  it('rejects a document longer than documentLength characters with DOCUMENT_TOO_LARGE', () => {
    const source = `{ level }${' '.repeat(1991)}`;
    const outcome = parseWithLimits(source, { documentLength: 1000 });
    expect('errors' in outcome && outcome.errors.map(described)).toEqual([
      {
        message: 'The document is 2000 characters long; the limit is 1000.',
        extensions: { code: 'DOCUMENT_TOO_LARGE', measured: 2000, limit: 1000 },
      },
    ]);
  });

  it('allows a document of exactly documentLength characters, and any length when the limit is false', () => {
    const source = `{ level }${' '.repeat(991)}`;
    expect(parseWithLimits(source, { documentLength: 1000 })).toHaveProperty('document');
    expect(parseWithLimits(`${source} `, { documentLength: false })).toHaveProperty('document');
  });

  it('returns a syntax error as an error with the code GRAPHQL_PARSE_FAILED, not a throw', () => {
    const outcome = parseWithLimits('{ level');
    expect('errors' in outcome && outcome.errors.map((error) => [error.message, error.extensions.code])).toEqual([
      ['Syntax Error: Expected Name, found <EOF>.', 'GRAPHQL_PARSE_FAILED'],
    ]);
  });
});

describe('analyze: introspection counted, left out, or uncosted', () => {
  const nested = '{ __schema { types { name fields { name type { name fields { name } } } } } hello: __typename }';

  it('uncosted: no cost for the schema query, its depth and nodes as counted', () => {
    const document = parse(nested);
    const counted = analyze({ schema, document });
    const uncosted = analyze({ schema, document, introspection: 'uncosted' });
    const ignored = analyze({ schema, document, introspection: 'ignore' });
    expect(counted.cost).toBeGreaterThan(0);
    expect(uncosted).toEqual({ ...counted, cost: 0 });
    expect(ignored).toMatchObject({ cost: 0, depth: 0, nodes: 0 });
  });

  it('uncosted: the standard introspection query fits the default limits, a schema query nested to blow up does not', () => {
    expect(checkLimits({ schema, document: parse(getIntrospectionQuery()), introspection: 'uncosted' }).errors).toEqual([]);
    expect(codes(checkLimits({ schema, document: parse(getIntrospectionQuery()) }).errors)).toEqual(['COST_LIMIT_EXCEEDED']);
    const deep = `{ __schema { types { ${'fields { type { '.repeat(8)}name${' } }'.repeat(8)} } } }`;
    const checked = checkLimits({ schema, document: parse(deep), introspection: 'uncosted' });
    // Ten list levels of ten each: stopped by its depth and by its nodes, whatever its cost.
    expect(codes(checked.errors)).toEqual(['DEPTH_LIMIT_EXCEEDED', 'NODE_LIMIT_EXCEEDED']);
    expect(checked.analysis).toMatchObject({ cost: 0, depth: 19 });
  });
});
