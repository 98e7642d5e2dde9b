/**
 * CollectFields (spec 6.3.2): which fields, under which response names and in which order, a
 * selection set asks of an object of one runtime type.
 *
 * The planner runs this once per (object type, field group) and keeps the result; it only runs
 * again per execution where `@skip`/`@include` read a variable, because then the answer depends
 * on the request's variables. The analyzer (analysis/analyze.ts) shares its two predicates but
 * walks with its own memo, one collection per (selection set, runtime type).
 */
import { GraphQLIncludeDirective, GraphQLSkipDirective, Kind, isAbstractType, typeFromAST } from 'graphql';
import type { Fragments } from './selectOperation.ts';
import { SPREAD_CONDITIONS_FIRST, directiveValues } from './graphqlCompat.ts';
import type { VariableValues } from './graphqlCompat.ts';
import type {
  DirectiveNode,
  FieldNode,
  FragmentDefinitionNode,
  FragmentSpreadNode,
  GraphQLObjectType,
  GraphQLSchema,
  InlineFragmentNode,
  SelectionSetNode,
  ValueNode,
} from 'graphql';

/** Response name -> the field nodes merged under it, in first-seen order. */
export type CollectedFields = Map<string, FieldNode[]>;

export type { Fragments };

type Conditional = FieldNode | FragmentSpreadNode | InlineFragmentNode;

/**
 * Collects the fields of every selection set in `selectionSets` (the sub-selections of all the
 * field nodes merged into one response position), as one group: a fragment spread is followed
 * once per group, as the spec's `visitedFragments` requires. Without `variableValues`, only
 * conditions written as literals can be read (the planner's case for selections that read none).
 */
export function collectFields(
  schema: GraphQLSchema,
  fragments: Fragments,
  variableValues: VariableValues | undefined,
  runtimeType: GraphQLObjectType,
  selectionSets: ReadonlyArray<SelectionSetNode>,
): CollectedFields {
  const fields: CollectedFields = new Map();
  const visited = new Set<string>();
  for (const selectionSet of selectionSets) {
    collectInto(schema, fragments, variableValues, runtimeType, selectionSet, fields, visited);
  }
  return fields;
}

function collectInto(
  schema: GraphQLSchema,
  fragments: Fragments,
  variableValues: VariableValues | undefined,
  runtimeType: GraphQLObjectType,
  selectionSet: SelectionSetNode,
  fields: CollectedFields,
  visited: Set<string>,
): void {
  for (const selection of selectionSet.selections) {
    switch (selection.kind) {
      case Kind.FIELD: {
        if (!shouldInclude(variableValues, selection)) continue;
        const responseName = selection.alias ? selection.alias.value : selection.name.value;
        const group = fields.get(responseName);
        if (group !== undefined) group.push(selection);
        else fields.set(responseName, [selection]);
        break;
      }
      case Kind.INLINE_FRAGMENT: {
        if (!shouldInclude(variableValues, selection) || !typeConditionMatches(schema, selection, runtimeType)) continue;
        collectInto(schema, fragments, variableValues, runtimeType, selection.selectionSet, fields, visited);
        break;
      }
      case Kind.FRAGMENT_SPREAD: {
        const name = selection.name.value;
        // A spread already followed is skipped before (16) or after (17) its @skip/@include are
        // read: it decides whether a condition that cannot be coerced is an error (graphqlCompat.ts).
        const skipped = SPREAD_CONDITIONS_FIRST
          ? !shouldInclude(variableValues, selection) || visited.has(name)
          : visited.has(name) || !shouldInclude(variableValues, selection);
        if (skipped) continue;
        visited.add(name);
        const fragment = fragments[name];
        if (fragment === undefined || !typeConditionMatches(schema, fragment, runtimeType)) continue;
        collectInto(schema, fragments, variableValues, runtimeType, fragment.selectionSet, fields, visited);
        break;
      }
    }
  }
}

/**
 * `@skip(if: true)` drops a selection; so does `@include(if: false)`; skip is checked first.
 * Throws what graphql-js throws when the condition cannot be coerced.
 */
export function shouldInclude(variableValues: VariableValues | undefined, node: Conditional): boolean {
  if (node.directives === undefined || node.directives.length === 0) return true;
  const skip = directiveValues(GraphQLSkipDirective, node, variableValues);
  if (skip?.['if'] === true) return false;
  const include = directiveValues(GraphQLIncludeDirective, node, variableValues);
  return include?.['if'] !== false;
}

/** DoesFragmentTypeApply (spec 6.3.2). */
export function typeConditionMatches(
  schema: GraphQLSchema,
  fragment: FragmentDefinitionNode | InlineFragmentNode,
  type: GraphQLObjectType,
): boolean {
  if (!fragment.typeCondition) return true;
  const conditionType = typeFromAST(schema, fragment.typeCondition);
  if (conditionType === type) return true;
  return isAbstractType(conditionType) && schema.isSubType(conditionType, type);
}

/**
 * Whether collecting these selection sets depends on the request's variables: true when some
 * `@skip`/`@include` reachable without entering a sub-field reads a variable.
 */
export function dependsOnVariables(fragments: Fragments, selectionSets: ReadonlyArray<SelectionSetNode>): boolean {
  const visited = new Set<string>();
  const walk = (selectionSet: SelectionSetNode): boolean => {
    for (const selection of selectionSet.selections) {
      if (hasVariableCondition(selection.directives)) return true;
      if (selection.kind === Kind.INLINE_FRAGMENT && walk(selection.selectionSet)) return true;
      if (selection.kind === Kind.FRAGMENT_SPREAD && !visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = fragments[selection.name.value];
        if (fragment !== undefined && walk(fragment.selectionSet)) return true;
      }
    }
    return false;
  };
  return selectionSets.some(walk);
}

function hasVariableCondition(directives: ReadonlyArray<DirectiveNode> | undefined): boolean {
  if (directives === undefined) return false;
  return directives.some(
    (directive) =>
      (directive.name.value === 'skip' || directive.name.value === 'include') &&
      (directive.arguments ?? []).some((argument) => containsVariable(argument.value)),
  );
}

/** Whether a literal refers to a variable anywhere inside it. */
export function containsVariable(value: ValueNode): boolean {
  switch (value.kind) {
    case Kind.VARIABLE:
      return true;
    case Kind.LIST:
      return value.values.some(containsVariable);
    case Kind.OBJECT:
      return value.fields.some((field) => containsVariable(field.value));
    default:
      return false;
  }
}
