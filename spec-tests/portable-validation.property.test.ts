/**
 * src/language/portableValidation.ts held to graphql's own `validate()`: for a document text,
 * `validatePortable` (run here on a second parse of the text, against the schema rebuilt from
 * `portableSchema`'s SDL, as the validation thread runs it) and then `replayValidation` on the
 * document parsed here must give exactly what `validate(schema, document, rules)` gives: the same
 * errors in the same order (message, locations, positions, extensions, and `nodes` the very
 * objects of this document), the same cap at maxErrors, and the same message when a rule throws.
 *
 * The schema has two custom scalars (Date, whose literal must be a "YYYY-MM-DD" string, and JSON),
 * whose code the rebuilt schema lacks: wherever a literal stands at their place, replayValidation
 * runs ValuesOfCorrectTypeRule itself, so the generated documents put good and bad literals there
 * (in arguments, lists, input object fields, directive arguments and variable defaults), beside
 * every other kind of error the rules know. Expected answers are always graphql's own, computed
 * here, so the file holds under graphql 16 and 17 alike. One allowance, graphql 17's: where its
 * validate() names a copy of a list or object literal (see expectSameAsValidate), the replay's
 * node need only be of the same kind at the same place.
 *
 * Three cases are held by example as well, each found by this file: "Validation aborted."
 * (graphql's own work budget), a list literal where one custom scalar is expected (graphql 17's
 * TypeInfo gives it no input type of its own), and argument defaults given as `defaultValue`
 * (graphql 17 keeps SDL defaults as `default`).
 *
 * Runs of the property: PORTABLE_VALIDATION_RUNS (default 300). A failure prints fast-check's
 * `seed` and `path`; set PORTABLE_VALIDATION_SEED (and PORTABLE_VALIDATION_PATH) to replay it.
 */
import fc from 'fast-check';
import {
  DirectiveLocation,
  GraphQLBoolean,
  GraphQLDirective,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
  GraphQLUnionType,
  Kind,
  parse,
  print,
  printSchema,
  specifiedDirectives,
  validate,
  valueFromASTUntyped,
  visit,
} from 'graphql';
import type {
  ASTNode,
  DocumentNode,
  GraphQLArgumentConfig,
  GraphQLError,
  GraphQLFieldConfig,
  GraphQLInputFieldConfig,
  GraphQLInputType,
  GraphQLNamedType,
  GraphQLOutputType,
  GraphQLType,
  ValidationRule,
  ValueNode,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { DEFER_DIRECTIVE, STREAM_DIRECTIVE } from '../src/language/graphqlCompat.ts';
import { buildPortableSchema, portableSchema, replayValidation, validatePortable } from '../src/language/portableValidation.ts';
import type { PortableSchema, PortableValidation } from '../src/language/portableValidation.ts';
import { validationRules } from '../src/server/validationRules.ts';
import { GRAPHQL_MAJOR } from './support/graphqlMajor.ts';

const RUNS = Number(process.env.PORTABLE_VALIDATION_RUNS ?? 300);
const SEED = process.env.PORTABLE_VALIDATION_SEED === undefined ? undefined : Number(process.env.PORTABLE_VALIDATION_SEED);
const PATH = process.env.PORTABLE_VALIDATION_PATH;
const PROPERTY_PARAMETERS: fc.Parameters<[string, readonly [string, ReadonlyArray<ValidationRule>], boolean]> = {
  numRuns: RUNS,
  ...(SEED === undefined ? {} : { seed: SEED }),
  ...(PATH === undefined ? {} : { path: PATH }),
};

// ---------------------------------------------------------------------------------------------
// The schema, built from one table that the document generator reads too.

const DATE_PATTERN = /^\d{4}-\d\d-\d\d$/;

function dateValue(value: unknown): string {
  if (typeof value === 'string' && DATE_PATTERN.test(value)) return value;
  throw new TypeError(`Date cannot represent ${JSON.stringify(value)}: a date is a "YYYY-MM-DD" string.`);
}

/** Only a StringValue "YYYY-MM-DD" is a Date literal. */
const DateScalar = new GraphQLScalarType({
  name: 'Date',
  serialize: dateValue,
  parseValue: dateValue,
  parseLiteral(node: ValueNode) {
    if (node.kind === Kind.STRING && DATE_PATTERN.test(node.value)) return node.value;
    throw new TypeError(`Date literals are "YYYY-MM-DD" strings, not ${print(node)}.`);
  },
});

/** Any literal is a JSON value. */
const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  serialize: (value: unknown) => value,
  parseValue: (value: unknown) => value,
  parseLiteral: (node: ValueNode) => valueFromASTUntyped(node) ?? null,
});

/** An argument or input field: its type, or its type and default (an internal value). */
type InputSpec = string | { readonly type: string; readonly default: unknown };

interface FieldSpec {
  readonly type: string;
  readonly args?: Readonly<Record<string, InputSpec>>;
}

/** The object and interface types (Node is the interface User and Post implement). */
const OUTPUT: Readonly<Record<string, Readonly<Record<string, FieldSpec>>>> = {
  Node: { id: { type: 'ID!' } },
  User: {
    id: { type: 'ID!' },
    name: { type: 'String' },
    born: { type: 'Date' },
    friends: { type: '[User!]!', args: { first: { type: 'Int', default: 10 }, since: 'Date' } },
    posts: { type: '[Post]', args: { tags: '[String!]' } },
    profile: { type: 'JSON' },
  },
  Post: {
    id: { type: 'ID!' },
    title: { type: 'String', args: { upper: { type: 'Boolean', default: false } } },
    author: { type: 'User' },
    at: { type: 'Date' },
    color: { type: 'Color' },
  },
  Query: {
    node: { type: 'Node', args: { id: 'ID!' } },
    user: { type: 'User', args: { id: 'ID!', since: { type: 'Date', default: '2020-01-01' } } },
    users: { type: '[User]', args: { first: { type: 'Int', default: 10 }, filter: 'Filter' } },
    search: { type: '[SearchResult!]!', args: { term: 'String!', filter: 'Filter', first: { type: 'Int', default: 5 } } },
    events: { type: '[Date]', args: { from: 'Date!', to: 'Date', at: '[Date!]' } },
    json: { type: 'JSON', args: { value: 'JSON', values: '[JSON]' } },
    color: { type: 'Color', args: { c: { type: 'Color', default: 'RED' }, cs: '[Color!]' } },
    pick: { type: 'Node', args: { by: 'Pick!' } },
    filters: { type: 'Int', args: { list: '[Filter!]!' } },
    numbers: { type: '[Int]', args: { n: 'Int', f: 'Float', b: 'Boolean', s: 'String' } },
  },
  Mutation: {
    createUser: { type: 'User', args: { name: 'String!', born: 'Date', input: 'Filter' } },
    touch: { type: 'Boolean', args: { at: { type: 'Date!', default: '2024-01-01' } } },
  },
  Subscription: {
    userAdded: { type: 'User', args: { after: 'Date' } },
    postAdded: { type: 'Post' },
    ticks: { type: '[Int]' },
  },
};

/** The input object types; Pick is @oneOf. */
const INPUT: Readonly<Record<string, Readonly<Record<string, InputSpec>>>> = {
  Point: { x: 'Int!', y: { type: 'Int', default: 0 } },
  Filter: {
    name: 'String',
    after: 'Date',
    tags: '[String!]',
    point: 'Point',
    colors: { type: '[Color!]', default: ['RED'] },
    meta: 'JSON',
    level: 'Int!',
  },
  Pick: { id: 'ID', name: 'String', when: 'Date' },
};

const UNION_MEMBERS = ['User', 'Post'];
const ROOTS = { query: 'Query', mutation: 'Mutation', subscription: 'Subscription' } as const;

const specType = (spec: InputSpec): string => (typeof spec === 'string' ? spec : spec.type);

/**
 * An argument or input field with a default, as the installed major prefers to be given one:
 * `defaultValue` (16), `default: { value }` (17; its `defaultValue` is deprecated, and see the
 * last describe block for what portableSchema makes of it).
 */
function withDefault(type: GraphQLInputType, value: unknown): GraphQLArgumentConfig & GraphQLInputFieldConfig {
  return (GRAPHQL_MAJOR >= 17 ? { type, default: { value } } : { type, defaultValue: value }) as GraphQLArgumentConfig & GraphQLInputFieldConfig;
}

function buildTestSchema(): GraphQLSchema {
  const named = new Map<string, GraphQLNamedType>([
    ['Int', GraphQLInt],
    ['Float', GraphQLFloat],
    ['String', GraphQLString],
    ['Boolean', GraphQLBoolean],
    ['ID', GraphQLID],
    ['Date', DateScalar],
    ['JSON', JsonScalar],
    ['Color', new GraphQLEnumType({ name: 'Color', values: { RED: {}, GREEN: {}, BLUE: {} } })],
  ]);
  const typeRef = (ref: string): GraphQLType => {
    // Under graphql 17 the types of GraphQLNonNull's argument differ: the test's references are well formed.
    if (ref.endsWith('!')) return new GraphQLNonNull(typeRef(ref.slice(0, -1)) as never);
    if (ref.startsWith('[')) return new GraphQLList(typeRef(ref.slice(1, -1)));
    const type = named.get(ref);
    if (type === undefined) throw new Error(`No type ${ref} in the test schema.`);
    return type;
  };
  const inputs = (specs: Readonly<Record<string, InputSpec>>) =>
    Object.fromEntries(
      Object.entries(specs).map(([name, spec]): [string, GraphQLArgumentConfig & GraphQLInputFieldConfig] => [
        name,
        typeof spec === 'string' ? { type: typeRef(spec) as GraphQLInputType } : withDefault(typeRef(spec.type) as GraphQLInputType, spec.default),
      ]),
    );
  const fields = (typeName: string) => () =>
    Object.fromEntries(
      Object.entries(OUTPUT[typeName]).map(([name, spec]): [string, GraphQLFieldConfig<unknown, unknown>] => [
        name,
        { type: typeRef(spec.type) as GraphQLOutputType, ...(spec.args === undefined ? {} : { args: inputs(spec.args) }) },
      ]),
    );
  for (const name of Object.keys(INPUT)) {
    named.set(name, new GraphQLInputObjectType({ name, fields: () => inputs(INPUT[name]), ...(name === 'Pick' ? { isOneOf: true } : {}) }));
  }
  const node = new GraphQLInterfaceType({ name: 'Node', fields: fields('Node') });
  named.set('Node', node);
  for (const name of ['User', 'Post', 'Query', 'Mutation', 'Subscription']) {
    named.set(name, new GraphQLObjectType({ name, fields: fields(name), ...(name === 'User' || name === 'Post' ? { interfaces: [node] } : {}) }));
  }
  named.set('SearchResult', new GraphQLUnionType({ name: 'SearchResult', types: () => UNION_MEMBERS.map((member) => named.get(member) as GraphQLObjectType) }));
  const tag = new GraphQLDirective({
    name: 'tag',
    locations: [DirectiveLocation.FIELD],
    args: inputs({ name: 'String!', weight: { type: 'Int', default: 1 }, when: 'Date' }),
  });
  const mark = new GraphQLDirective({
    name: 'mark',
    isRepeatable: true,
    locations: [DirectiveLocation.FIELD, DirectiveLocation.INLINE_FRAGMENT],
    args: inputs({ at: { type: 'Date', default: '2024-01-01' } }),
  });
  const directives = [...specifiedDirectives, DEFER_DIRECTIVE, STREAM_DIRECTIVE, tag, mark].filter(
    (directive, index, all) => all.findIndex((other) => other.name === directive.name) === index,
  );
  return new GraphQLSchema({
    query: named.get('Query') as GraphQLObjectType,
    mutation: named.get('Mutation') as GraphQLObjectType,
    subscription: named.get('Subscription') as GraphQLObjectType,
    types: [...named.values()],
    directives,
  });
}

const SCHEMA = buildTestSchema();
const PORTABLE_OR_NULL = portableSchema(SCHEMA);
/** Rebuilt once, as the validation thread does. */
const REBUILT = PORTABLE_OR_NULL === null ? null : buildPortableSchema(PORTABLE_OR_NULL);

function portable(): PortableSchema {
  if (PORTABLE_OR_NULL === null) throw new Error('portableSchema() refused the test schema.');
  return PORTABLE_OR_NULL;
}

const RULE_LISTS: ReadonlyArray<readonly [string, ReadonlyArray<ValidationRule>]> = [
  ['validationRules(false)', validationRules(false)],
  ['validationRules(true)', validationRules(true)],
];

// ---------------------------------------------------------------------------------------------
// The comparison.

type Outcome = { readonly errors: ReadonlyArray<GraphQLError> } | { readonly threw: string };

function outcome(run: () => ReadonlyArray<GraphQLError>): Outcome {
  try {
    return { errors: run() };
  } catch (error) {
    return { threw: error instanceof Error ? error.message : String(error) };
  }
}

interface Options {
  readonly hideSuggestions?: boolean;
  readonly maxErrors?: number;
}

/** validatePortable on a parse of its own (the other thread's), against the rebuilt schema. */
function findPortably(text: string, rules: ReadonlyArray<ValidationRule>, options: Options): PortableValidation {
  return validatePortable(REBUILT ?? buildPortableSchema(portable()), parse(text), rules, {
    ...(options.hideSuggestions === undefined ? {} : { hideSuggestions: options.hideSuggestions }),
    customScalars: portable().customScalars,
  });
}

/** Every node of a document. */
function documentNodes(document: DocumentNode): Set<ASTNode> {
  const nodes = new Set<ASTNode>();
  visit(document, {
    enter(node) {
      nodes.add(node);
    },
  });
  return nodes;
}

/**
 * Validates `text` both ways and expects the same outcome: graphql's validate() on this thread's
 * document, and replayValidation() of what validatePortable found on another parse of the text.
 * Returns what validatePortable found.
 */
function expectSameAsValidate(text: string, rules: ReadonlyArray<ValidationRule>, options: Options = {}): Exclude<PortableValidation, null> {
  const document = parse(text);
  const found = findPortably(text, rules, options);
  if (found === null) throw new Error(`validatePortable returned null for a parsed document:\n${text}`);
  const expected = outcome(() => validate(SCHEMA, document, rules, options));
  const actual = outcome(() => replayValidation(SCHEMA, document, rules, found, options));
  if ('threw' in expected) {
    expect(actual, `validate() threw; replayValidation must throw the same message.\n${text}`).toEqual({ threw: expected.threw });
    return found;
  }
  if ('threw' in actual) throw new Error(`replayValidation threw "${actual.threw}", validate() did not.\n${text}`);
  const messages = (errors: ReadonlyArray<GraphQLError>) => errors.map((error) => error.message);
  const own = documentNodes(document);
  expect(messages(actual.errors), text).toEqual(messages(expected.errors));
  for (const [index, want] of expected.errors.entries()) {
    const got = actual.errors[index];
    const where = `error ${index} (${want.message}) of\n${text}`;
    expect(got.locations, where).toEqual(want.locations);
    expect(got.positions, where).toEqual(want.positions);
    expect(got.extensions, where).toEqual(want.extensions);
    expect(got.nodes?.length, where).toBe(want.nodes?.length);
    for (const [at, node] of (want.nodes ?? []).entries()) {
      if (own.has(node)) {
        expect(got.nodes?.[at], `${where}\nnode ${at}`).toBe(node);
      } else {
        // graphql 17 only: a built-in scalar judges a list or object literal on a copy of it (its
        // replaceVariables), and names the copy, which keeps the place. The replay names the node
        // at that place: the document's own, or such a copy when this thread ran the rule.
        expect(GRAPHQL_MAJOR, `${where}\nnode ${at} is not one of the document's`).toBeGreaterThanOrEqual(17);
        expect([got.nodes?.[at].kind, got.nodes?.[at].loc?.start, got.nodes?.[at].loc?.end], `${where}\nnode ${at}`).toEqual([node.kind, node.loc?.start, node.loc?.end]);
      }
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// The documents: texts that parse, mixing valid and invalid parts.

type Arb = fc.Arbitrary<string>;

/** The variables a document may use, with the type that fits their usual places. */
const VARIABLES: Readonly<Record<string, string>> = {
  d: 'Date',
  dn: 'Date!',
  i: 'Int',
  b: 'Boolean!',
  s: 'String',
  f: 'Filter',
  c: 'Color',
  j: 'JSON',
  l: '[Date]',
  p: 'Pick',
};
const VARIABLE_NAMES = Object.keys(VARIABLES);
const WRONG_VARIABLE_TYPES = ['Int', 'Date!', '[Date!]!', 'Filter!', 'User', 'Nope', 'JSON!', 'Boolean'];
const FRAGMENT_NAMES = ['F', 'G', 'H'];
const TYPE_CONDITIONS = ['User', 'Post', 'Node', 'SearchResult', 'Query', 'Nope', 'Int'];
const ALIASES = ['a', 'b', 'id', 'name', 'x'];

/** `arbitrary` once in `oneIn` times, else nothing (''). */
function sometimes(arbitrary: Arb, oneIn: number): Arb {
  return fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant('') }, { weight: 1, arbitrary });
}

/** `arbitrary`, but nothing ('') once in `oneIn` times. */
function mostly(arbitrary: Arb, oneIn: number): Arb {
  return fc.oneof({ weight: 1, arbitrary: fc.constant('') }, { weight: oneIn - 1, arbitrary });
}

/** One arbitrary per key, made once: the generators below recurse by type and depth. */
function memo<K extends unknown[]>(make: (...key: K) => Arb): (...key: K) => Arb {
  const made = new Map<string, Arb>();
  return (...key: K) => {
    const id = JSON.stringify(key);
    let arbitrary = made.get(id);
    if (arbitrary === undefined) {
      arbitrary = make(...key);
      made.set(id, arbitrary);
    }
    return arbitrary;
  };
}

const variableUse: Arb = fc.constantFrom(...VARIABLE_NAMES, 'nope').map((name) => `$${name}`);

/** Any literal at all (of every kind), variables too unless `constant`. */
const anyLiteral = memo((constant: boolean, depth: number): Arb => {
  const leaves: Arb = fc.constantFrom('1', '-7', '2.5', '"str"', '"2024-01-31"', '"31/01/2024"', 'true', 'null', 'RED', '{}', '[]');
  const choices: Array<{ weight: number; arbitrary: Arb }> = [{ weight: 6, arbitrary: leaves }];
  if (!constant) choices.push({ weight: 1, arbitrary: variableUse });
  if (depth > 0) {
    choices.push({ weight: 1, arbitrary: fc.array(anyLiteral(constant, depth - 1), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`) });
    choices.push({
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(fc.constantFrom('a', 'b', 'level', 'after'), anyLiteral(constant, depth - 1)), { maxLength: 3 })
        .map((entries) => `{${entries.map(([key, value]) => `${key}: ${value}`).join(', ')}}`),
    });
  }
  return fc.oneof(...choices);
});

const LEAF_LITERALS: Readonly<Record<string, ReadonlyArray<string>>> = {
  Int: ['0', '7', '-3', '2147483648', '1.5', '"7"'],
  Float: ['1.5', '2', '-0.25e3', '"x"'],
  String: ['"s"', '""', '"""block"""', '"2024-01-31"', '5'],
  Boolean: ['true', 'false', '"true"', '0'],
  ID: ['"u1"', '4', '4.5'],
  Date: ['"2024-01-31"', '"1999-12-31"', '"2024-1-1"', '"tomorrow"', '20240131', '"2024-01-31T00:00"', 'TODAY'],
  Color: ['RED', 'GREEN', 'BLUE', 'PURPLE', '"RED"', 'red'],
};

/** A value for a place of type `type`: mostly of that type, sometimes wrong, null or a variable. */
const valueFor = memo((type: string, constant: boolean, depth: number): Arb => {
  if (type.endsWith('!')) return valueFor(type.slice(0, -1), constant, depth);
  const proper = properValue(type, constant, depth);
  const choices: Array<{ weight: number; arbitrary: Arb }> = [
    { weight: 12, arbitrary: proper },
    { weight: 1, arbitrary: fc.constant('null') },
    { weight: 1, arbitrary: anyLiteral(constant, Math.min(depth, 1)) },
  ];
  if (!constant) choices.push({ weight: 3, arbitrary: variableUse });
  return fc.oneof(...choices);
});

function properValue(type: string, constant: boolean, depth: number): Arb {
  if (type.startsWith('[')) {
    const item = type.slice(1, -1);
    if (depth <= 0) return fc.constant('[]');
    return fc.oneof(
      fc.array(valueFor(item, constant, depth - 1), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
      valueFor(item, constant, depth - 1),
    );
  }
  if (type === 'JSON') return anyLiteral(constant, Math.min(depth, 2));
  const leaves = LEAF_LITERALS[type];
  if (leaves !== undefined) return fc.constantFrom(...leaves);
  const fields = INPUT[type];
  if (fields === undefined) return anyLiteral(constant, 0);
  if (depth <= 0) return fc.constant('{}');
  const entries = Object.entries(fields).map(([name, spec]) => {
    const given = valueFor(specType(spec), constant, depth - 1).map((value) => `${name}: ${value}`);
    return typeof spec === 'string' && spec.endsWith('!') ? mostly(given, 6) : sometimes(given, 2);
  });
  const extra = sometimes(fc.constantFrom('bogus: 1', `${Object.keys(fields)[0]}: null`), 8);
  return fc.tuple(...entries, extra).map((parts) => `{${parts.filter((part) => part !== '').join(', ')}}`);
}

const booleanArgument: Arb = fc.constantFrom('true', 'false', '$b', '$i', '"yes"', '$nope');
const label: Arb = fc.constantFrom('"L"', '"M"', '"L"', '$s', '3');

const fieldDirective = memo(
  (listField: boolean): Arb =>
    fc.oneof(
      booleanArgument.map((value) => `@skip(if: ${value})`),
      booleanArgument.map((value) => `@include(if: ${value})`),
      fc.constant('@tag(name: "t")'),
      valueFor('Date', false, 1).map((value) => `@tag(name: "t", weight: 2, when: ${value})`),
      fc.constant('@tag'),
      valueFor('Date', false, 1).map((value) => `@mark(at: ${value})`),
      fc.constantFrom('@nope', '@defer', '@skip'),
      listField
        ? fc.oneof(fc.constant('@stream'), fc.tuple(valueFor('Int', false, 0), label).map(([count, name]) => `@stream(initialCount: ${count}, label: ${name})`), booleanArgument.map((value) => `@stream(if: ${value})`))
        : fc.constant('@stream(initialCount: 1)'),
    ),
);

const spreadDirective: Arb = fc.oneof(
  fc.constant('@defer'),
  label.map((name) => `@defer(label: ${name})`),
  fc.tuple(booleanArgument, label).map(([value, name]) => `@defer(if: ${value}, label: ${name})`),
  booleanArgument.map((value) => `@skip(if: ${value})`),
  fc.constantFrom('@include(if: false)', '@nope', '@mark', '@stream'),
);

const directives = (directive: Arb, maxLength: number): Arb => fc.array(directive, { maxLength }).map((each) => each.map((one) => ` ${one}`).join(''));

const isComposite = (name: string) => OUTPUT[name] !== undefined || name === 'SearchResult';
const namedOf = (ref: string) => ref.replace(/[[\]!]/g, '');

/** The arguments of a known field: each given or not (a required one mostly given), sometimes an unknown or a repeated one. */
function argumentsFor(specs: Readonly<Record<string, InputSpec>> | undefined): Arb {
  const entries = Object.entries(specs ?? {});
  const each = entries.map(([name, spec]) => {
    const type = specType(spec);
    const required = type.endsWith('!') && typeof spec === 'string';
    const given = valueFor(type, false, 2).map((value) => `${name}: ${value}`);
    return required ? mostly(given, 8) : sometimes(given, 2);
  });
  const extra = sometimes(fc.constantFrom('zzz: 1', ...entries.map(([name]) => `${name}: null`)), 10);
  return fc.tuple(fc.tuple(...each), extra).map(([given, more]) => {
    const all = [...given, more].filter((part) => part !== '');
    return all.length === 0 ? '' : `(${all.join(', ')})`;
  });
}

/** A selection set for `type` (a composite type of the schema, or any other name). */
const selectionSet = memo((type: string, depth: number): Arb => {
  if (depth <= 0) return fc.constantFrom('{ __typename }', '{ id }', '{ nope }', '{ ...F }');
  return fc.array(selection(type, depth), { minLength: 1, maxLength: depth >= 2 ? 4 : 3 }).map((selections) => `{ ${selections.join(' ')} }`);
});

const selection = memo((type: string, depth: number): Arb => {
  const own = OUTPUT[type] ?? {};
  const choices: Array<{ weight: number; arbitrary: Arb }> = [
    ...Object.keys(own).map((name) => ({ weight: 3, arbitrary: field(type, name, depth) })),
    { weight: 2, arbitrary: fc.tuple(sometimes(fc.constantFrom(...ALIASES).map((alias) => `${alias}: `), 3), directives(fieldDirective(false), 1)).map(([alias, dirs]) => `${alias}__typename${dirs}`) },
    { weight: 1, arbitrary: field(type, 'nope', depth) },
    { weight: 1, arbitrary: field(type, type === 'Post' ? 'name' : 'title', depth) },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom(...FRAGMENT_NAMES, 'Gone'), directives(spreadDirective, 2)).map(([name, dirs]) => `...${name}${dirs}`),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('', ...TYPE_CONDITIONS), directives(spreadDirective, 2))
        .chain(([on, dirs]) => selectionSet(on === '' ? type : isComposite(on) ? on : type, depth - 1).map((set) => `...${on === '' ? '' : ` on ${on}`}${dirs} ${set}`)),
    },
  ];
  if (type === 'Query') {
    choices.push({
      weight: 1,
      arbitrary: fc.constantFrom(
        '__schema { queryType { name } types { name kind } }',
        '__type(name: "User") { name kind fields { name } }',
        '__type { name }',
        '__type(name: 1) { name }',
        '__schema { nope }',
        'a: __type(name: "Post") { name }',
      ),
    });
  }
  return fc.oneof(...choices);
});

function field(type: string, name: string, depth: number): Arb {
  const spec = OUTPUT[type]?.[name];
  const returns = spec === undefined ? 'Nope' : namedOf(spec.type);
  const list = spec !== undefined && spec.type.includes('[');
  const args = spec === undefined ? sometimes(anyLiteral(false, 1).map((value) => `(q: ${value})`), 3) : argumentsFor(spec.args);
  const sub: Arb = isComposite(returns)
    ? fc.oneof({ weight: 12, arbitrary: selectionSet(returns, depth - 1) }, { weight: 1, arbitrary: fc.constant('') })
    : spec === undefined
      ? sometimes(selectionSet('User', 0), 3)
      : sometimes(fc.constant('{ id }'), 15);
  return fc
    .tuple(sometimes(fc.constantFrom(...ALIASES).map((alias) => `${alias}: `), 3), args, directives(fieldDirective(list), 2), sub)
    .map(([alias, given, dirs, set]) => `${alias}${name}${given}${dirs}${set === '' ? '' : ` ${set}`}`);
}

const variableDefinitions: Arb = fc
  .subarray(VARIABLE_NAMES, { maxLength: 5 })
  .chain((names) =>
    names.length === 0
      ? fc.constant('')
      : fc
          .tuple(
            ...names.map((name) =>
              fc
                .oneof({ weight: 5, arbitrary: fc.constant(VARIABLES[name]) }, { weight: 1, arbitrary: fc.constantFrom(...WRONG_VARIABLE_TYPES) })
                .chain((type) => sometimes(valueFor(type, true, 2).map((value) => ` = ${value}`), 3).map((initial) => `$${name}: ${type}${initial}`)),
            ),
            sometimes(fc.constant('$d: Int'), 12),
          )
          .map((definitions) => `(${definitions.filter((definition) => definition !== '').join(', ')})`),
  );

const operation: Arb = fc
  .tuple(
    fc.constantFrom('query', 'query', 'query', 'mutation', 'subscription', 'subscription', '{'),
    fc.constantFrom('', '', 'A', 'B', 'A'),
    variableDefinitions,
    sometimes(fc.constantFrom('@nope', '@skip(if: true)', '@tag(name: "op")'), 10),
  )
  .chain(([kind, name, variables, directive]) => {
    const root = kind === 'mutation' ? ROOTS.mutation : kind === 'subscription' ? ROOTS.subscription : ROOTS.query;
    return selectionSet(root, 2).map((set) =>
      kind === '{' ? set : `${kind}${name === '' ? '' : ` ${name}`}${variables}${directive === '' ? '' : ` ${directive}`} ${set}`,
    );
  });

const fragment: Arb = fc
  .tuple(fc.constantFrom(...FRAGMENT_NAMES), fc.constantFrom(...TYPE_CONDITIONS), sometimes(fc.constantFrom('@nope', '@skip(if: true)', '@defer'), 8))
  .chain(([name, on, directive]) => selectionSet(isComposite(on) ? on : 'User', 1).map((set) => `fragment ${name} on ${on}${directive === '' ? '' : ` ${directive}`} ${set}`));

const documentText: Arb = fc.array(fc.oneof({ weight: 3, arbitrary: operation }, { weight: 2, arbitrary: fragment }), { minLength: 1, maxLength: 4 }).map((definitions) => definitions.join('\n'));

/** Only texts that parse: the generator means to write such texts, and this keeps it honest. */
function parses(text: string): boolean {
  try {
    parse(text);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------

describe('portableSchema', () => {
  it('carries the test schema (custom scalars Date and JSON named as the ones only this thread can judge)', () => {
    const carried = portableSchema(SCHEMA);
    expect(carried).not.toBeNull();
    expect([...(carried?.customScalars ?? [])].sort()).toEqual(['Date', 'JSON']);
    expect(printSchema(buildPortableSchema(portable()))).toBe(printSchema(SCHEMA));
  });

  it('refuses (null) a schema whose argument default cannot be printed', () => {
    const Broken = new GraphQLScalarType({
      name: 'Broken',
      serialize() {
        throw new TypeError('Broken values cannot be serialized.');
      },
      parseValue: (value: unknown) => value,
      parseLiteral: (node: ValueNode) => valueFromASTUntyped(node),
    });
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({
        name: 'Query',
        fields: { value: { type: GraphQLString, args: { input: withDefault(new GraphQLNonNull(Broken), 'anything') } } },
      }),
    });
    let printed: string | undefined;
    try {
      printed = printSchema(schema);
    } catch {
      printed = undefined;
    }
    if (printed === undefined) {
      expect(portableSchema(schema)).toBeNull();
    } else {
      // This major prints the schema in spite of it: then the default must have come through.
      expect(printed).toMatch(/input: Broken! = /);
      expect(portableSchema(schema)).not.toBeNull();
    }
  });
});

describe('validatePortable + replayValidation give what validate() gives', () => {
  it('on generated documents, with either rule list and with or without suggestions', () => {
    let withCustomLiterals = 0;
    let withErrors = 0;
    fc.assert(
      fc.property(documentText, fc.constantFrom(...RULE_LISTS), fc.boolean(), (text, [, rules], hideSuggestions) => {
        fc.pre(parses(text));
        const found = expectSameAsValidate(text, rules, { hideSuggestions });
        if ('errors' in found) {
          if (found.customLiterals) withCustomLiterals++;
          if (found.errors.length > 0) withErrors++;
        }
      }),
      PROPERTY_PARAMETERS,
    );
    // The generator is meant to reach both of replayValidation's ways, and errors of every kind.
    expect(withCustomLiterals).toBeGreaterThan(RUNS / 10);
    expect(withErrors).toBeGreaterThan(RUNS / 2);
  });

  it('on valid documents, which give no errors either way', () => {
    const texts = [
      '{ user(id: "1") { id name born friends(first: 2, since: "2024-01-31") { id } } }',
      'query Q($d: Date! = "2024-01-31", $b: Boolean!) { events(from: $d, at: ["2024-02-01"]) @stream(initialCount: 1, label: "s") search(term: "x") { ... on User { id } ...P @defer(if: $b, label: "p") } }\nfragment P on Post { title(upper: true) at }',
      'mutation { touch createUser(name: "n", born: "2000-01-01", input: { level: 1, after: "2024-01-31", colors: [RED], meta: { a: [1, "x"] } }) { id } }',
      'subscription { userAdded(after: "2024-01-31") { id } }',
      '{ pick(by: { when: "2024-01-31" }) { id ... on User { name } } json(value: { a: { b: [null] } }) __typename }',
    ];
    for (const text of texts) {
      for (const [, rules] of RULE_LISTS) {
        expect(validate(SCHEMA, parse(text), rules), text).toEqual([]);
        expectSameAsValidate(text, rules);
      }
    }
  });

  it('on bad custom scalar literals, whose message only this thread can write', () => {
    const text =
      'query Q($d: Date = "soon", $f: Filter = { level: 1, after: 3 }) { events(from: "nope", at: ["2024-01-31", "later"]) users(filter: { level: 1, after: TODAY }) { id } json(value: { a: 1 }) __typename @tag(name: "t", when: 2024) }';
    for (const [, rules] of RULE_LISTS) {
      const found = expectSameAsValidate(text, rules);
      expect(found).toMatchObject({ customLiterals: true });
      // The messages carry the Date scalar's own words, which the rebuilt schema does not have.
      const messages = validate(SCHEMA, parse(text), rules).map((error) => error.message);
      expect(messages.filter((message) => message.includes('"YYYY-MM-DD" strings')).length).toBeGreaterThanOrEqual(5);
    }
  });
});

describe('the error limit (maxErrors) is validate()\'s', () => {
  const unknownFields = (from: number, count: number) => Array.from({ length: count }, (_, index) => `f${from + index}`).join(' ');

  it('with a custom scalar literal among more than 100 errors (this thread walks the document)', () => {
    for (const at of [60, 120]) {
      const text = `{ ${unknownFields(0, at)} events(from: "not a date") ${unknownFields(at, 150 - at)} }`;
      for (const [, rules] of RULE_LISTS) {
        for (const hideSuggestions of [false, true]) {
          const found = expectSameAsValidate(text, rules, { hideSuggestions });
          expect(found).toMatchObject({ customLiterals: true });
          // The rebuilt Date takes any literal: the other thread finds only the 150 unknown fields.
          expect('errors' in found && found.errors.length).toBe(150);
          const errors = validate(SCHEMA, parse(text), rules, { hideSuggestions });
          expect(errors).toHaveLength(101);
        }
      }
    }
  });

  it('with no custom scalar literal and more than 100 errors (the errors found are replayed in a walk)', () => {
    const text = `query Q($d: Date!) { ${unknownFields(0, 75)} events(from: $d) ${unknownFields(75, 75)} }`;
    for (const [, rules] of RULE_LISTS) {
      const found = expectSameAsValidate(text, rules);
      expect(found).toMatchObject({ customLiterals: false });
      expect('errors' in found && found.errors.length).toBe(150);
      expect(validate(SCHEMA, parse(text), rules)).toHaveLength(101);
    }
  });

  it('with exactly 100 errors (no "Too many validation errors" either way)', () => {
    for (const middle of ['events(from: "not a date")', 'events(from: "2024-01-31")']) {
      const count = middle.includes('not') ? 99 : 100;
      const text = `{ ${unknownFields(0, 50)} ${middle} ${unknownFields(50, count - 50)} }`;
      for (const [, rules] of RULE_LISTS) {
        expectSameAsValidate(text, rules);
        expect(validate(SCHEMA, parse(text), rules)).toHaveLength(100);
      }
    }
  });

  it('with a maxErrors of its own, passed to both', () => {
    const texts = [`{ ${unknownFields(0, 3)} events(from: 5) ${unknownFields(3, 4)} }`, `query Q($d: Date!) { ${unknownFields(0, 3)} events(from: $d) ${unknownFields(3, 4)} }`];
    for (const text of texts) {
      for (const maxErrors of [1, 3, 4, 5, 7, 8, 50]) {
        for (const [, rules] of RULE_LISTS) expectSameAsValidate(text, rules, { maxErrors });
      }
    }
  });
});

describe('customLiterals says whether a literal stands where Date or JSON is expected', () => {
  // The two marked last: a list literal where a single custom scalar is expected. graphql 17's
  // TypeInfo gives a ListValue at a position that is not a list no input type (16 gives it the
  // position's); ValuesOfCorrectTypeRule asks getParentInputType(), finds Date, and Date's code
  // refuses the list, so validatePortable must ask the same.
  const cases: ReadonlyArray<readonly [string, boolean, string, boolean?]> = [
    ['an argument', true, '{ events(from: "2024-01-31") }'],
    ['a bad one', true, '{ events(from: "yesterday") }'],
    ['inside a list', true, 'query Q($dn: Date!) { events(from: $dn, at: ["2024-01-31"]) }'],
    ['an input object field', true, '{ users(filter: { level: 1, after: "2024-01-31" }) { id } }'],
    ['a @oneOf input object field', true, '{ pick(by: { when: "2024-01-31" }) { id } }'],
    ['a variable default', true, 'query Q($d: Date = "2024-01-31") { events(from: $d) }'],
    ['inside a variable default', true, 'query Q($f: Filter = { level: 1, after: "2024-01-31" }) { users(filter: $f) { id } }'],
    ['a directive argument', true, '{ __typename @tag(name: "t", when: "2024-01-31") }'],
    ['a JSON object', true, '{ json(value: { a: 1 }) }'],
    ['a JSON list item', true, '{ json(values: [1]) }'],
    ['a list where one Date is expected', true, '{ events(from: []) }', true],
    ['a list in a directive argument where one Date is expected', true, '{ __typename @mark(at: ["2024-01-31"]) }', true],
    ['a variable only', false, 'query Q($dn: Date!) { events(from: $dn) }'],
    ['a JSON variable only', false, 'query Q($j: JSON) { json(value: $j) }'],
    ['an undeclared variable', false, '{ events(from: $nowhere) }'],
    ['a default in the schema, not the document', false, '{ user(id: "1") { born } mutation: __typename }'],
    ['an input object without a Date field given', false, '{ users(filter: { level: 1, name: "2024-01-31" }) { id } }'],
    ['a date-like String', false, '{ numbers(s: "2024-01-31") }'],
    ['a literal for an unknown argument', false, '{ events(from: $d, when: "2024-01-31") }'],
  ];
  it('(validate() refuses a list where one Date is expected, with the Date scalar\'s words, under either major)', () => {
    for (const text of ['{ events(from: []) }', '{ __typename @mark(at: ["2024-01-31"]) }']) {
      const messages = validate(SCHEMA, parse(text), validationRules(false)).map((error) => error.message);
      expect(messages, text).toHaveLength(1);
      expect(messages[0], text).toContain('Date literals are "YYYY-MM-DD" strings');
    }
  });
  for (const [where, expected, text, listAtDate = false] of cases) {
    it(`${expected ? 'true' : 'false'}: ${where}${listAtDate ? ' (graphql 17: a ListValue without an input type of its own)' : ''}`, () => {
      for (const [, rules] of RULE_LISTS) {
        const found = expectSameAsValidate(text, rules);
        expect(found).toMatchObject({ customLiterals: expected });
      }
    });
  }
});

describe('a rule that throws', () => {
  // graphql 16's SingleFieldSubscriptionsRule throws where @skip/@include of a root field read a
  // variable (it has no values for them); graphql 17 reports errors instead.
  const texts = [
    'subscription S($b: Boolean!) { ticks postAdded @skip(if: $b) { id } }',
    'subscription S($b: Boolean!) { ticks @skip(if: $b) }',
    'subscription { ticks @include(if: $b) userAdded { id } }',
  ];
  for (const text of texts) {
    it(`throws the same message through the other thread as validate() here: ${text}`, () => {
      for (const [, rules] of RULE_LISTS) {
        const expected = outcome(() => validate(SCHEMA, parse(text), rules));
        const found = findPortably(text, rules, {});
        // The case this block is for, under graphql 16.
        if (GRAPHQL_MAJOR === 16) expect(expected).toHaveProperty('threw');
        if ('threw' in expected) {
          expect(found).toEqual({ threw: expected.threw });
          expect(() => replayValidation(SCHEMA, parse(text), rules, found as Exclude<PortableValidation, null>)).toThrow(expected.threw);
        }
        expectSameAsValidate(text, rules);
      }
    });
  }
});

describe('validation aborted by graphql\'s own work budget', () => {
  // graphql (16.15 and 17) stops validating a document whose fields it cannot compare within its
  // budget (OverlappingFieldsCanBeMergedRule, ValidationContext.spendFragmentWork) and returns a
  // last error, "Validation aborted.", that no rule reported: validatePortable says where it
  // stopped, and replayValidation stops there too (with its own walk, when a custom scalar's
  // literal comes before or after the place).
  const text = `{ ${'x: numbers '.repeat(720)} }`;
  it('(graphql aborts validating 720 fields of one response name)', () => {
    for (const [, rules] of RULE_LISTS) {
      expect(validate(SCHEMA, parse(text), rules).map((error) => error.message)).toEqual(['Validation aborted.']);
    }
  });
  it('gives validate()\'s "Validation aborted." too', () => {
    for (const [, rules] of RULE_LISTS) expectSameAsValidate(text, rules);
  });
  it('gives it after the errors reported before it, a custom scalar\'s among them, and none after it', () => {
    // graphql gives up as it enters the selection set (comparing its fields): a variable's default
    // comes before it, a field's argument after it.
    const texts = [
      [`query Q($d: Date = "soon") { nope ${'x: numbers '.repeat(720)} }`, true],
      [`{ events(from: "yesterday") nope ${'x: numbers '.repeat(720)} }`, false],
    ] as const;
    for (const [each, customLiterals] of texts) {
      const messages = validate(SCHEMA, parse(each), validationRules(false)).map((error) => error.message);
      expect(messages.at(-1), each).toBe('Validation aborted.');
      for (const [, rules] of RULE_LISTS) expect(expectSameAsValidate(each, rules)).toMatchObject({ customLiterals });
    }
  });
});

describe('a schema whose argument defaults are given as `defaultValue`', () => {
  // graphql 16's only way, still accepted (deprecated) by graphql 17. Under 17
  // the schema rebuilt from the SDL holds its defaults as `default: { literal }`, its
  // `defaultValue` stays undefined, and portableSchema's comparison of the two (sameDefaults)
  // must read both, or it finds a default lost and refuses every such schema (whose documents
  // would then be validated in this thread).
  it('is portable, its defaults carried by the SDL', () => {
    const schema = new GraphQLSchema({
      query: new GraphQLObjectType({
        name: 'Query',
        fields: { numbers: { type: new GraphQLList(GraphQLInt), args: { first: { type: new GraphQLNonNull(GraphQLInt), defaultValue: 10 } } } },
      }),
    });
    const carried = portableSchema(schema);
    expect(carried).not.toBeNull();
    expect(carried?.sdl).toContain('numbers(first: Int! = 10): [Int]');
  });
});
