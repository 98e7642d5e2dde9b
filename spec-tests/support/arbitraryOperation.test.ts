/**
 * The generator's own laws: what it produces is valid, serializable and varied enough for the
 * differential test to mean something.
 */
import fc from 'fast-check';
import {
  buildSchema,
  getVariableValues,
  isAbstractType,
  isInterfaceType,
  isUnionType,
  Kind,
  parse,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { DocumentNode, GraphQLScalarType, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { fixtures } from '../../fixtures/index.ts';
import { arbitraryOperation, describeOperation } from './arbitraryOperation.ts';
import type { GeneratedOperation } from './arbitraryOperation.ts';

const SAMPLES = 500;

/** Every kind of type and position the generator has to handle, in one schema of its own. */
const testSchema = buildSchema(/* GraphQL */ `
  "Accepts only YYYY-MM-DD strings."
  scalar Date
  "Accepts nothing at all: arguments of this type can never be written."
  scalar Opaque
  "Accepts anything (the default scalar parsers)."
  scalar JSON

  enum Color { RED GREEN BLUE }

  interface Node { id: ID! }
  interface Named implements Node { id: ID! name(upper: Boolean = false): String! }
  interface Aged { age: Int }
  interface Unimplemented { nothing: String }

  type Person implements Named & Node & Aged {
    id: ID!
    name(upper: Boolean = false): String!
    age: Int
    born: Date
    friends(first: Int = 2, after: ID): [Person!]!
    pets: [Pet]
    matrix: [[Int!]]!
    best: Named
  }
  type Dog implements Named & Node { id: ID! name(upper: Boolean = false): String! barks: Boolean! }
  type Cat implements Named & Node & Aged { id: ID! name(upper: Boolean = false): String! age: Int lives: Int }
  type Rock { weight: Float }
  union Pet = Dog | Cat
  union Thing = Person | Dog | Rock

  input Range { from: Int = 0, to: Int! }
  input Filter {
    colors: [Color!]
    range: Range
    since: Date
    nested: [[Int]]
    tags: [String!]! = []
    self: Filter
    blob: JSON
    secret: Opaque
  }
  input Choice @oneOf { byId: ID, byName: String, byRange: Range }

  type Query {
    node(id: ID!): Node
    named(id: ID!): Named
    things(filter: Filter, limit: Int! = 3, order: [Color] = [RED]): [Thing!]!
    pick(choice: Choice!): Thing
    people(ids: [ID!]!, since: Date, grid: [[Int!]!]): [Person]
    aged: [Aged]
    ghost: Unimplemented
    unusable(key: Opaque!): String
    optionalOpaque(key: Opaque): String
    echo(json: JSON, text: String, ratio: Float, flag: Boolean, color: Color): String
    thing: Thing
  }

  type Mutation {
    addPerson(name: String!, born: Date, filter: Filter! = { tags: ["new"] }): Person
    rename(id: ID!, name: String): Named!
  }
`);

const dateScalar = testSchema.getType('Date') as GraphQLScalarType;
const opaqueScalar = testSchema.getType('Opaque') as GraphQLScalarType;
const isDate = (value: unknown): value is string => typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
dateScalar.parseValue = (value) => {
  if (!isDate(value)) {
    throw new TypeError(`Date cannot represent ${String(value)}.`);
  }
  return value;
};
dateScalar.parseLiteral = (node) => {
  if (node.kind !== Kind.STRING || !isDate(node.value)) {
    throw new TypeError('Date literals are YYYY-MM-DD strings.');
  }
  return node.value;
};
opaqueScalar.parseValue = () => {
  throw new TypeError('Opaque accepts no input.');
};
opaqueScalar.parseLiteral = () => {
  throw new TypeError('Opaque accepts no input.');
};

/** Lists of lists everywhere, where one item written in place of a list is easy to get wrong. */
const listsSchema = buildSchema(/* GraphQL */ `
  input Cell { grid: [[Int]], strict: [[Int!]!], cells: [[Cell]] }
  type Query {
    grid(grid: [[Int]], strict: [[Int!]!]!, cells: [[Cell!]], deep: [[[ID]]]): Int
  }
`);

const schemas: Array<[name: string, schema: GraphQLSchema]> = [
  ['the generator test schema', testSchema],
  ['a schema of nested list arguments', listsSchema],
  ...fixtures.map((fixture): [string, GraphQLSchema] => [`the ${fixture.name} fixture`, fixture.run().schema]),
];

function sample(schema: GraphQLSchema, seed: number): GeneratedOperation[] {
  return fc.sample(arbitraryOperation(schema), { seed, numRuns: SAMPLES });
}

function chosenOperation(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode {
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const chosen = operations.find((operation) => operationName === undefined || operation.name?.value === operationName);
  if (chosen === undefined) {
    throw new Error(`No operation named ${String(operationName)}.`);
  }
  return chosen;
}

describe('arbitraryOperation', () => {
  for (const [name, schema] of schemas) {
    it(`generates only documents that pass validate() over ${name}`, () => {
      fc.assert(
        fc.property(arbitraryOperation(schema), (operation) => {
          const errors = validate(schema, parse(operation.document));
          if (errors.length > 0) {
            throw new Error(`${errors.map((error) => error.message).join('\n')}\n\n${describeOperation(operation)}`);
          }
        }),
        { numRuns: SAMPLES },
      );
    });
  }

  it('generates variables that survive a JSON round trip unchanged', () => {
    fc.assert(
      fc.property(arbitraryOperation(testSchema), ({ variables }) => {
        expect(JSON.parse(JSON.stringify(variables ?? null))).toStrictEqual(variables ?? null);
      }),
      { numRuns: SAMPLES },
    );
  });

  it('names an operation exactly when the document holds several, and the name picks an operation in it', () => {
    fc.assert(
      fc.property(arbitraryOperation(testSchema), ({ document, operationName }) => {
        const operations = parse(document).definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION);
        if (operations.length > 1) {
          expect(operationName).toBeDefined();
        }
        expect(() => chosenOperation(parse(document), operationName)).not.toThrow();
      }),
      { numRuns: SAMPLES },
    );
  });

  it('covers the features the differential test relies on', () => {
    const seen = new Set<string>();
    const note = (feature: string, present: boolean) => {
      if (present) {
        seen.add(feature);
      }
    };
    for (const operation of sample(testSchema, 20240229)) {
      const document = parse(operation.document);
      const chosen = chosenOperation(document, operation.operationName);
      const spreadCounts = new Map<string, number>();
      const aliasCounts = new Map<string, number>();
      const typeInfo = new TypeInfo(testSchema);
      visit(document, visitWithTypeInfo(typeInfo, {
        OperationDefinition(node) {
          note('mutation', node.operation === 'mutation');
          note('variable with a default', node.variableDefinitions?.some((definition) => definition.defaultValue) ?? false);
        },
        Field(node) {
          note('alias', node.alias !== undefined);
          if (node.alias) {
            const key = `${node.alias.value}: ${node.name.value}`;
            aliasCounts.set(key, (aliasCounts.get(key) ?? 0) + 1);
          }
          note('__typename', node.name.value === '__typename');
          note('field argument as a literal', node.arguments?.some((arg) => arg.value.kind !== Kind.VARIABLE) ?? false);
          note('field argument as a variable', node.arguments?.some((arg) => arg.value.kind === Kind.VARIABLE) ?? false);
        },
        Directive(node) {
          const condition = node.arguments?.[0]?.value.kind;
          note(`@${node.name.value} with a literal`, condition === Kind.BOOLEAN);
          note(`@${node.name.value} with a variable`, condition === Kind.VARIABLE);
        },
        InlineFragment(node) {
          note('inline fragment without a type condition', node.typeCondition === undefined);
          const condition = node.typeCondition && testSchema.getType(node.typeCondition.name.value);
          note('inline fragment on an abstract type', isAbstractType(condition));
          note('inline fragment on an interface inside a union', isUnionType(typeInfo.getParentType()) && isInterfaceType(condition));
        },
        FragmentSpread(node) {
          spreadCounts.set(node.name.value, (spreadCounts.get(node.name.value) ?? 0) + 1);
        },
        ListValue() {
          seen.add('list literal');
        },
        ObjectValue() {
          seen.add('input object literal');
        },
        NullValue() {
          seen.add('null literal');
        },
      }));
      note('named fragment', spreadCounts.size > 0);
      note('named fragment spread twice', [...spreadCounts.values()].some((count) => count > 1));
      note('two operations and an operation name', document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION).length === 2);
      note('same alias selected twice', [...aliasCounts.values()].some((count) => count > 1));
      const definitions = chosen.variableDefinitions ?? [];
      const coerced = getVariableValues(testSchema, definitions, operation.variables ?? {});
      note('invalid variable values', 'errors' in coerced);
      note('variable left out', definitions.some((definition) => !(definition.variable.name.value in (operation.variables ?? {}))));
      note('variable sent as null', Object.values(operation.variables ?? {}).some((value) => value === null));
    }
    expect([...seen].sort()).toEqual(
      [
        '@include with a literal',
        '@include with a variable',
        '@skip with a literal',
        '@skip with a variable',
        '__typename',
        'alias',
        'field argument as a literal',
        'field argument as a variable',
        'inline fragment on an abstract type',
        'inline fragment on an interface inside a union',
        'inline fragment without a type condition',
        'input object literal',
        'invalid variable values',
        'list literal',
        'mutation',
        'named fragment',
        'named fragment spread twice',
        'null literal',
        'same alias selected twice',
        'two operations and an operation name',
        'variable left out',
        'variable sent as null',
        'variable with a default',
      ].sort(),
    );
  });

  it('never writes a value of a custom scalar that accepts none', () => {
    for (const operation of sample(testSchema, 7)) {
      expect(operation.document).not.toMatch(/\bunusable\(|\bsecret:|\boptionalOpaque\(/);
    }
  });

  it('rejects options that are not positive integers, naming the option and the value', () => {
    expect(() => arbitraryOperation(testSchema, { maxDepth: 0 })).toThrow(
      new TypeError('arbitraryOperation: option "maxDepth" must be a positive integer, got 0.'),
    );
    expect(() => arbitraryOperation(testSchema, { intRange: [5, 1] })).toThrow(/option "intRange"/);
  });
});
