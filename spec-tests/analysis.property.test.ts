/**
 * Laws of `analyze`, checked on random valid operations (spec-tests/support/arbitraryOperation.ts)
 * over the cost fixture and every fixture in fixtures/index.ts:
 *
 * - Writing every named fragment out as an inline fragment (same type condition, same
 *   directives) changes none of the six numbers: they are defined on the inlined operation.
 * - Adding a field to any selection set never lowers the cost or the depth.
 * - The depth is the longest chain of fields in the inlined operation, as a naive recursive walk
 *   finds it: @skip/@include decided by the coerced variables, and an inline fragment entered
 *   only when some runtime type can reach it (a fragment on Movie inside a fragment on Book
 *   never runs, however deep it is).
 * - On the cost fixture, whose lists are never longer than their slicing argument (or assumed or
 *   default size), the static cost is at least the cost our executor measures while running the
 *   operation (`execute({ measureCost: true })`, reported as `extensions.cost.actual`). The
 *   analysis assumes the length the fixture gives unsliced lists (UNSLICED_LENGTH), not 10, so
 *   the bound is tight wherever no abstract type or null intervenes: a list one item longer than
 *   its slicing argument fails the law.
 *
 * Runs per law and fixture: ANALYSIS_RUNS (default 200). A failure prints fast-check's `seed`
 * and `path`; set ANALYSIS_SEED (and ANALYSIS_PATH) to them to replay it.
 */
import fc from 'fast-check';
import {
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  SchemaMetaFieldDef,
  TypeInfo,
  TypeMetaFieldDef,
  TypeNameMetaFieldDef,
  getDirectiveValues,
  getNamedType,
  isAbstractType,
  isCompositeType,
  isObjectType,
  isRequiredArgument,
  isUnionType,
  parse,
  typeFromAST,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type {
  DefinitionNode,
  DocumentNode,
  FieldNode,
  FragmentDefinitionNode,
  GraphQLCompositeType,
  GraphQLField,
  GraphQLSchema,
  InlineFragmentNode,
  OperationDefinitionNode,
  SelectionNode,
  SelectionSetNode,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { UNSLICED_LENGTH, fixture as cost } from '../fixtures/cost/index.ts';
import { fixtures } from '../fixtures/index.ts';
import type { Fixture } from '../fixtures/types.ts';
import { analyze, execute } from '../src/index.ts';
import type { Analysis } from '../src/index.ts';
import { arbitraryOperation } from './support/arbitraryOperation.ts';
import { coercedVariables } from './support/graphqlMajor.ts';
import type { GeneratedOperation } from './support/arbitraryOperation.ts';

const RUNS = Number(process.env.ANALYSIS_RUNS ?? 200);
const SEED = process.env.ANALYSIS_SEED === undefined ? undefined : Number(process.env.ANALYSIS_SEED);
const PATH = process.env.ANALYSIS_PATH;

const PARAMETERS: fc.Parameters<unknown> = {
  numRuns: RUNS,
  ...(SEED === undefined ? {} : { seed: SEED }),
  ...(PATH === undefined ? {} : { path: PATH }),
};

/**
 * Small non-negative Ints: fixtures read Ints as counts, and a list that must respect its slicing
 * argument cannot be -1 items long. Six levels of nesting give the depth law room.
 */
const OPERATIONS = { intRange: [0, 6], maxDepth: 6 } as const;

const schemas: Fixture[] = [cost, ...fixtures.filter((fixture) => fixture.name !== cost.name)];

function analyzeGenerated(schema: GraphQLSchema, operation: GeneratedOperation, document = parse(operation.document)): Analysis {
  return analyze({ schema, document, variableValues: operation.variables, operationName: operation.operationName });
}

describe('analysis laws', () => {
  for (const fixture of schemas) {
    const schema = fixture.run().schema;

    describe(fixture.name, () => {
      it('gives the same six numbers when every named fragment is written out as an inline fragment', () => {
        fc.assert(
          fc.property(arbitraryOperation(schema, OPERATIONS), (operation) => {
            const document = parse(operation.document);
            const inlined = inlineFragments(document);
            expect(analyzeGenerated(schema, operation, inlined)).toEqual(analyzeGenerated(schema, operation, document));
          }),
          PARAMETERS,
        );
      });

      it('never lowers the cost or the depth when a field is added to a selection set', () => {
        fc.assert(
          fc.property(arbitraryOperation(schema, OPERATIONS), fc.nat(), fc.nat(), (operation, setChoice, fieldChoice) => {
            const document = parse(operation.document);
            const larger = withAddedField(schema, document, setChoice, fieldChoice);
            const before = analyzeGenerated(schema, operation, document);
            const after = analyzeGenerated(schema, operation, larger);
            expect(after.cost).toBeGreaterThanOrEqual(before.cost);
            expect(after.depth).toBeGreaterThanOrEqual(before.depth);
          }),
          PARAMETERS,
        );
      });

      it('reports as depth the longest chain of fields a naive walk finds in the inlined operation', () => {
        fc.assert(
          fc.property(arbitraryOperation(schema, OPERATIONS), (operation) => {
            const document = inlineFragments(parse(operation.document));
            const chosen = chosenOperation(document, operation.operationName);
            const variables = coercedVariables(schema, chosen.variableDefinitions ?? [], operation.variables ?? {});
            // The contract fixes the numbers for variables that coerce; for the others, execution rejects the request.
            fc.pre(variables !== undefined);
            const walk = new DepthWalk(schema, (variables as NonNullable<typeof variables>).forGraphql);
            const root = schema.getRootType(chosen.operation);
            if (root === undefined || root === null) {
              throw new Error(`Invariant: the generator wrote a ${chosen.operation} the schema has no root type for.`);
            }
            const depth = walk.depth(chosen.selectionSet, root, new Set([root.name]));
            // Likewise for an `if` whose variable is null: execution reports it as an error.
            fc.pre(!walk.undecided);
            expect(analyzeGenerated(schema, operation, document).depth).toBe(depth);
          }),
          PARAMETERS,
        );
      });
    });
  }

  it('finds a static cost at least the cost measured while executing, when lists respect their slicing arguments (cost fixture)', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryOperation(cost.run().schema, OPERATIONS), async (operation) => {
        const { schema, contextValue } = cost.run();
        const document = parse(operation.document);
        const result = await execute({
          schema,
          document,
          contextValue,
          variableValues: operation.variables,
          operationName: operation.operationName,
          measureCost: true,
        });
        // A request error (a variable that does not coerce), or an error collecting the root
        // fields (an `if: null`), runs no resolver and leaves nothing to compare.
        fc.pre(result.data !== null && result.data !== undefined);
        const actual = (result.extensions as { cost?: { actual?: unknown } } | undefined)?.cost?.actual;
        expect(actual).toEqual(expect.any(Number));
        const estimate = analyze({
          schema,
          document,
          variableValues: operation.variables,
          operationName: operation.operationName,
          defaultListSize: UNSLICED_LENGTH,
        });
        expect(estimate.cost).toBeGreaterThanOrEqual(actual as number);
      }),
      PARAMETERS,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Document transformations
// ---------------------------------------------------------------------------------------------

/**
 * The document with every fragment spread replaced by an inline fragment carrying the fragment's
 * type condition and the spread's directives, and no fragment definitions left. Acyclic
 * fragments only (as every valid document has).
 */
function inlineFragments(document: DocumentNode): DocumentNode {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments.set(definition.name.value, definition);
    }
  }
  const inlineSet = (set: SelectionSetNode): SelectionSetNode => ({
    ...set,
    selections: set.selections.map((selection): SelectionNode => {
      if (selection.kind === Kind.FIELD) {
        return selection.selectionSet === undefined ? selection : { ...selection, selectionSet: inlineSet(selection.selectionSet) };
      }
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        return { ...selection, selectionSet: inlineSet(selection.selectionSet) };
      }
      const fragment = fragments.get(selection.name.value);
      if (fragment === undefined) {
        throw new Error(`Invariant: a generated document spreads an undefined fragment "${selection.name.value}".`);
      }
      const inline: InlineFragmentNode = {
        kind: Kind.INLINE_FRAGMENT,
        typeCondition: fragment.typeCondition,
        directives: selection.directives,
        selectionSet: inlineSet(fragment.selectionSet),
      };
      return inline;
    }),
  });
  const definitions: DefinitionNode[] = [];
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) {
      definitions.push({ ...definition, selectionSet: inlineSet(definition.selectionSet) });
    }
  }
  return { ...document, definitions };
}

/**
 * The document with one more field in one of its selection sets (operations' and fragments'
 * alike, picked by `setChoice`): a field of the set's type without required arguments, or
 * `__typename`, picked by `fieldChoice`, under an alias nothing else uses, with `{ __typename }`
 * below it when it returns a composite type.
 */
function withAddedField(schema: GraphQLSchema, document: DocumentNode, setChoice: number, fieldChoice: number): DocumentNode {
  const sets: Array<{ set: SelectionSetNode; parent: GraphQLCompositeType }> = [];
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      SelectionSet(set) {
        const parent = typeInfo.getParentType();
        if (parent) {
          sets.push({ set, parent });
        }
      },
    }),
  );
  const target = sets[setChoice % sets.length];
  if (target === undefined) {
    throw new Error('Invariant: every operation has a selection set.');
  }
  const candidates: Array<{ name: string; composite: boolean }> = [{ name: '__typename', composite: false }];
  if (!isUnionType(target.parent)) {
    for (const field of Object.values(target.parent.getFields())) {
      if (!field.args.some(isRequiredArgument)) {
        candidates.push({ name: field.name, composite: isCompositeType(getNamedType(field.type)) });
      }
    }
  }
  const chosen = candidates[fieldChoice % candidates.length] as { name: string; composite: boolean };
  const text = `{ addedByTheLaw: ${chosen.name}${chosen.composite ? ' { __typename }' : ''} }`;
  const [definition] = parse(text, { noLocation: true }).definitions as OperationDefinitionNode[];
  const added = definition?.selectionSet.selections[0] as FieldNode;
  return visit(document, {
    SelectionSet: {
      enter(set) {
        return set === target.set ? { ...set, selections: [...set.selections, added] } : undefined;
      },
    },
  });
}

function chosenOperation(document: DocumentNode, operationName: string | undefined): OperationDefinitionNode {
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const chosen = operationName === undefined ? operations[0] : operations.find((operation) => operation.name?.value === operationName);
  if (chosen === undefined) {
    throw new Error(`Invariant: the generator names an operation "${String(operationName)}" its document lacks.`);
  }
  return chosen;
}

// ---------------------------------------------------------------------------------------------
// The naive depth
// ---------------------------------------------------------------------------------------------

/** The longest chain of fields, walked selection by selection over an inlined operation. */
class DepthWalk {
  readonly #schema: GraphQLSchema;
  /** The coerced variables, as the installed graphql-js's getDirectiveValues takes them. */
  readonly #variables: never;
  /** Whether some @skip/@include had an `if` that cannot be evaluated (a variable holding null). */
  undecided = false;

  constructor(schema: GraphQLSchema, variables: never) {
    this.#schema = schema;
    this.#variables = variables;
  }

  /**
   * The depth of `set`, written on `parent`, when the object it is evaluated on has one of the
   * `runtimeTypes` (names of object types; an inline fragment narrows them to its condition's).
   */
  depth(set: SelectionSetNode, parent: GraphQLCompositeType, runtimeTypes: ReadonlySet<string>): number {
    let deepest = 0;
    for (const selection of set.selections) {
      if (!this.#included(selection)) {
        continue;
      }
      if (selection.kind === Kind.FIELD) {
        deepest = Math.max(deepest, 1 + this.#below(selection, parent));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const condition = selection.typeCondition
          ? (typeFromAST(this.#schema, selection.typeCondition) as GraphQLCompositeType)
          : parent;
        const narrowed = new Set([...this.#possibleTypes(condition)].filter((name) => runtimeTypes.has(name)));
        if (narrowed.size > 0) {
          deepest = Math.max(deepest, this.depth(selection.selectionSet, condition, narrowed));
        }
      } else {
        throw new Error('Invariant: the naive walk runs on inlined operations only.');
      }
    }
    return deepest;
  }

  #below(field: FieldNode, parent: GraphQLCompositeType): number {
    if (field.selectionSet === undefined) {
      return 0;
    }
    const definition = this.#fieldDefinition(parent, field.name.value);
    const named = getNamedType(definition.type);
    if (!isCompositeType(named)) {
      throw new Error(`Invariant: a selection set below the leaf field "${field.name.value}".`);
    }
    return this.depth(field.selectionSet, named, this.#possibleTypes(named));
  }

  #fieldDefinition(parent: GraphQLCompositeType, name: string): GraphQLField<unknown, unknown> {
    const meta = [SchemaMetaFieldDef, TypeMetaFieldDef, TypeNameMetaFieldDef].find((field) => field.name === name);
    const definition = meta ?? (isUnionType(parent) ? undefined : parent.getFields()[name]);
    if (definition === undefined) {
      throw new Error(`Invariant: "${parent.name}" has no field "${name}".`);
    }
    return definition;
  }

  #possibleTypes(type: GraphQLCompositeType): ReadonlySet<string> {
    if (isObjectType(type)) {
      return new Set([type.name]);
    }
    if (isAbstractType(type)) {
      return new Set(this.#schema.getPossibleTypes(type).map((member) => member.name));
    }
    throw new Error(`Invariant: "${String(type)}" is neither an object type nor abstract.`);
  }

  #included(selection: SelectionNode): boolean {
    try {
      if (getDirectiveValues(GraphQLSkipDirective, selection, this.#variables)?.if === true) {
        return false;
      }
      return getDirectiveValues(GraphQLIncludeDirective, selection, this.#variables)?.if !== false;
    } catch {
      this.undecided = true;
      return false;
    }
  }
}
