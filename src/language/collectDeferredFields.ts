/**
 * CollectFields with `@defer` (the Incremental Delivery RFC's CollectFields, as graphql 17 runs
 * it): which fields a selection set asks of an object of one runtime type, and for each field
 * node, the *defer usage* it was found under.
 *
 * A defer usage is one `@defer` met while collecting (its `if` not false): its label, and the
 * defer usage it was found inside (its parent), so deferred fragments nest. A field node found
 * under no `@defer` has none. Fields of a sub-selection inherit the defer usage of the field node
 * they were found under, so a whole subtree belongs to the fragment that deferred it until
 * another `@defer` starts a nested one.
 *
 * Two differences from collectFields.ts (which the executor runs for everything else, and which
 * ignores `@defer`, so an operation run without incremental delivery has all its fields inline):
 *  - a fragment spread is followed again when met under another `@defer` (the same fields
 *    are then asked both inline and deferred, or by two deferred fragments);
 *  - `@skip`/`@include` are read before asking whether the fragment was followed already.
 * Only incremental executions (execution/incremental/) call this, once per request per
 * selection plan.
 */
import { Kind } from 'graphql';
import type { DirectiveNode, FieldNode, FragmentSpreadNode, GraphQLObjectType, GraphQLSchema, InlineFragmentNode, SelectionSetNode } from 'graphql';
import { shouldInclude, typeConditionMatches } from './collectFields.ts';
import type { Fragments } from './collectFields.ts';
import { DEFER_DIRECTIVE, directiveValues } from './graphqlCompat.ts';
import type { VariableValues } from './graphqlCompat.ts';

/** One `@defer` met while collecting fields, for one request. */
export interface DeferUsage {
  readonly label: string | undefined;
  /** The directive, which tells a fragment followed under it from the same one followed elsewhere. */
  readonly directive: DirectiveNode;
  /** The `@defer` this one was found inside; undefined at the top. */
  readonly parent: DeferUsage | undefined;
}

/** A field node, and the `@defer` it was found under (undefined: none). */
export interface FieldDetails {
  readonly node: FieldNode;
  readonly deferUsage: DeferUsage | undefined;
}

/** Response name -> the field nodes merged under it, in first-seen order, with their defer usages. */
export type GroupedFieldDetails = Map<string, FieldDetails[]>;

/** What collecting gives: the grouped fields, and the `@defer`s met for the first time here. */
export interface DeferredCollection {
  readonly fields: GroupedFieldDetails;
  readonly newDeferUsages: ReadonlyArray<DeferUsage>;
}

/** One selection set to collect, and the defer usage its fields inherit. */
export interface SelectionSetUnder {
  readonly selectionSet: SelectionSetNode;
  readonly deferUsage: DeferUsage | undefined;
}

interface Walk {
  readonly schema: GraphQLSchema;
  readonly fragments: Fragments;
  readonly variables: VariableValues | undefined;
  readonly runtimeType: GraphQLObjectType;
  /** Fragment name -> the `@defer` directives it was followed under (null: under none). */
  readonly visited: Map<string, Set<DirectiveNode | null>>;
  readonly fields: GroupedFieldDetails;
  readonly newDeferUsages: DeferUsage[];
}

/** Collects the fields of every selection set in `inputs` as one group (the spec's CollectSubfields). */
export function collectDeferredFields(
  schema: GraphQLSchema,
  fragments: Fragments,
  variables: VariableValues | undefined,
  runtimeType: GraphQLObjectType,
  inputs: ReadonlyArray<SelectionSetUnder>,
): DeferredCollection {
  const walk: Walk = { schema, fragments, variables, runtimeType, visited: new Map(), fields: new Map(), newDeferUsages: [] };
  for (const input of inputs) visit(walk, input.selectionSet, input.deferUsage);
  return { fields: walk.fields, newDeferUsages: walk.newDeferUsages };
}

function visit(walk: Walk, selectionSet: SelectionSetNode, deferUsage: DeferUsage | undefined): void {
  for (const selection of selectionSet.selections) {
    if (!shouldInclude(walk.variables, selection)) continue;
    if (selection.kind === Kind.FIELD) {
      const responseName = selection.alias ? selection.alias.value : selection.name.value;
      const group = walk.fields.get(responseName);
      const details: FieldDetails = { node: selection, deferUsage };
      if (group !== undefined) group.push(details);
      else walk.fields.set(responseName, [details]);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      if (!typeConditionMatches(walk.schema, selection, walk.runtimeType)) continue;
      visit(walk, selection.selectionSet, deferUsageOf(walk, selection, deferUsage) ?? deferUsage);
    } else {
      visitSpread(walk, selection, deferUsage);
    }
  }
}

/** A fragment spread is followed once per `@defer` it is met under (and once under none). */
function visitSpread(walk: Walk, spread: FragmentSpreadNode, deferUsage: DeferUsage | undefined): void {
  const name = spread.name.value;
  const fragment = walk.fragments[name];
  if (fragment === undefined || !typeConditionMatches(walk.schema, fragment, walk.runtimeType)) return;
  const directive = spread.directives?.find((node) => node.name.value === DEFER_DIRECTIVE.name);
  const newUsage = directive === undefined ? undefined : activeDefer(walk, directive, deferUsage);
  const usage = newUsage ?? deferUsage;
  let followedUnder = walk.visited.get(name);
  if (followedUnder === undefined) {
    followedUnder = new Set();
    walk.visited.set(name, followedUnder);
  }
  if (followedUnder.has(null) || (usage !== undefined && followedUnder.has(usage.directive))) return;
  if (newUsage !== undefined) walk.newDeferUsages.push(newUsage);
  followedUnder.add(usage?.directive ?? null);
  visit(walk, fragment.selectionSet, usage);
}

/** The new defer usage of an inline fragment, recorded as met; undefined when it has no active `@defer`. */
function deferUsageOf(walk: Walk, fragment: InlineFragmentNode, parent: DeferUsage | undefined): DeferUsage | undefined {
  const directive = fragment.directives?.find((node) => node.name.value === DEFER_DIRECTIVE.name);
  if (directive === undefined) return undefined;
  const usage = activeDefer(walk, directive, parent);
  if (usage !== undefined) walk.newDeferUsages.push(usage);
  return usage;
}

/** A `@defer` whose `if` is not false, as a defer usage under `parent`; undefined when switched off. */
function activeDefer(walk: Walk, directive: DirectiveNode, parent: DeferUsage | undefined): DeferUsage | undefined {
  const values = directiveValues(DEFER_DIRECTIVE, { directives: [directive] }, walk.variables);
  if (values?.['if'] === false) return undefined;
  const label = values?.['label'];
  return { label: typeof label === 'string' ? label : undefined, directive, parent };
}

/**
 * Whether a document uses `@defer` or `@stream` anywhere (planned once per document: plan.ts).
 * A node parsed from a text that names neither word anywhere cannot: that is answered from the
 * text, without walking the tree.
 */
export function usesIncrementalDelivery(node: unknown): boolean {
  const text = (node as { loc?: { source?: { body?: unknown } } } | null)?.loc?.source?.body;
  if (typeof text === 'string' && !text.includes('defer') && !text.includes('stream')) return false;
  return walksToIncrementalDirective(node);
}

/** The walk of usesIncrementalDelivery: a directive named `defer` or `stream` anywhere beneath `node`. */
function walksToIncrementalDirective(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(walksToIncrementalDirective);
  if (node === null || typeof node !== 'object') return false;
  const { kind } = node as { kind?: string };
  if (kind === Kind.DIRECTIVE) {
    const name = (node as DirectiveNode).name.value;
    return name === 'defer' || name === 'stream';
  }
  for (const key in node) {
    if (key === 'loc') continue;
    const value = (node as Record<string, unknown>)[key];
    if (typeof value === 'object' && value !== null && walksToIncrementalDirective(value)) return true;
  }
  return false;
}
