/**
 * analyze: what running an operation would cost, worked out from the document alone, before
 * any resolver runs.
 *
 *  - `cost`: the IBM Cost Directives field cost. Every field's weight counts once per time its
 *    resolver would run, so list fields multiply what is beneath them by their size.
 *  - `nodes`: GitHub's node count, the sum over list fields of the product of the list sizes
 *    above and at them.
 *  - `depth`: the longest chain of nested fields.
 *  - `fields`, `aliases`, `directives`: how many the operation holds once its fragments are
 *    written out in place.
 *
 * EXACT. The numbers are those of the operation with every fragment inlined, `@skip`/`@include`
 * decided by the variables, and fields merged by response name the way CollectFields merges
 * them (spec 6.3.2). So writing a selection inline, in an inline fragment or in a named fragment
 * never changes them. An abstract type counts as the most expensive of its possible types.
 *
 * LINEAR. Inlining can multiply a document: a fragment spread twice, which spreads another
 * twice, forty levels deep, inlines to 2^40 fields. We never inline. Each (selection set,
 * runtime type) is collected once, and each merged group of selection sets is measured once per
 * runtime type and list context; every later occurrence reuses the measure. So a document of N
 * nodes is analyzed in O(N) steps, yet the reported numbers count every inlined occurrence.
 * Fragment cycles (invalid, but analysis may run before validation) count as empty.
 */
import {
  Kind,
  getNamedType,
  isCompositeType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  GraphQLError,
} from 'graphql';
import type {
  DocumentNode,
  FieldNode,
  FragmentSpreadNode,
  GraphQLField,
  GraphQLInputType,
  GraphQLObjectType,
  GraphQLOutputType,
  GraphQLSchema,
  InlineFragmentNode,
  SelectionSetNode,
  ValueNode,
  VariableDefinitionNode,
} from 'graphql';
import { shouldInclude, typeConditionMatches } from '../language/collectFields.ts';
import { ErrorCode } from '../errors/codes.ts';
import { coerceVariableValues, noVariables, valuesOf } from '../language/graphqlCompat.ts';
import type { VariableValues } from '../language/graphqlCompat.ts';
import { fieldDefinition } from '../language/fieldDefinition.ts';
import { selectOperation } from '../language/selectOperation.ts';
import type { Fragments } from '../language/selectOperation.ts';
import { costWeight, listSize } from './costDirectives.ts';
import { fastClass } from '../jsutils/fastClass.ts';

export interface AnalyzeArgs {
  schema: GraphQLSchema;
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Readonly<Record<string, unknown>> | null;
  /** The size assumed for a list field without `@listSize` (default 10). */
  defaultListSize?: number;
  /**
   * Count introspection (`__schema`, `__type`, `__typename`), leave it out, or count its depth
   * and nodes but not its cost (`'uncosted'`: what the server does, so that an IDE's schema query
   * fits the cost limit, while a schema query nested to blow up is still stopped by the depth and
   * node limits). Default 'count'.
   */
  introspection?: 'count' | 'ignore' | 'uncosted';
  /**
   * Told each merged field's measure as it is worked out: once per field, runtime type and list
   * context, as the analysis is linear. What `npm run explain` shows per field (execution/explain.ts).
   */
  onField?: (measure: FieldMeasure) => void;
}

/** One merged field's part of the cost: `cost = weight + listSize × (cost of its selection)`, per parent object. */
export interface FieldMeasure {
  readonly parentType: GraphQLObjectType;
  readonly fieldNodes: ReadonlyArray<FieldNode>;
  /** Its own cost each time it runs (fieldWeight). */
  readonly weight: number;
  /** For a list field, how many items are assumed (nested lists multiplied); null for other fields. */
  readonly listSize: number | null;
  /** It and everything beneath it, for one parent object. */
  readonly cost: number;
}

export interface Analysis {
  depth: number;
  cost: number;
  nodes: number;
  aliases: number;
  directives: number;
  fields: number;
  /**
   * The `@defer`s and `@stream`s that can apply (their `if` not false), with fragments written
   * out: the parts the response may be delivered in after the first.
   */
  incremental: number;
}

/** The analysis plus what checkLimits needs beyond the numbers. */
export interface OperationAnalysis {
  analysis: Analysis;
  /** Fields that required exactly one slicing argument and did not get it, as messages. */
  slicingViolations: string[];
}

export const DEFAULT_LIST_SIZE = 10;

/** Analyzes the selected operation; throws the request error when no operation can be chosen. */
export function analyze(args: AnalyzeArgs): Analysis {
  return analyzeOperation(args).analysis;
}

/**
 * The analysis recurses once per level of nesting; past this many levels it would exhaust the
 * stack, so deeper documents are refused before it starts (checkLimits reports how deep).
 */
export const MAX_ANALYZED_NESTING = 500;

/** Thrown for a document nested deeper than the analysis goes; `depth` is how deep it is. */
export class DocumentTooDeepError extends GraphQLError {
  readonly depth: number;
  constructor(depth: number) {
    super(`The document nests fields ${depth} levels deep; at most ${MAX_ANALYZED_NESTING} can be analyzed.`, {
      extensions: { code: ErrorCode.DocumentTooDeep, measured: depth, limit: MAX_ANALYZED_NESTING },
    });
    this.depth = depth;
  }
}
fastClass(DocumentTooDeepError);

export function analyzeOperation(args: AnalyzeArgs): OperationAnalysis {
  const selected = selectOperation(args.document, args.operationName);
  if (selected instanceof GraphQLError) throw selected;
  const { operation, fragments } = selected;
  const nesting = nestingDepth(operation.selectionSet, fragments);
  if (nesting > MAX_ANALYZED_NESTING) throw new DocumentTooDeepError(nesting);
  // Variables decide @skip/@include and slicing arguments. Values that do not coerce are left
  // out (their defaults apply); execution will reject them anyway.
  const coerced = coerceVariableValues(args.schema, operation.variableDefinitions ?? [], args.variableValues ?? {});
  const variables = coerced.variables ?? defaultsOnly(args, operation.variableDefinitions ?? []);
  const analyzer = new Analyzer(args.schema, fragments, variables, args.defaultListSize ?? DEFAULT_LIST_SIZE, args.introspection ?? 'count', args.onField);
  const rootType = args.schema.getRootType(operation.operation);
  const measure = rootType ? analyzer.measureGroup([operation.selectionSet], rootType, null) : ZERO;
  const counts = analyzer.countSelections(operation.selectionSet);
  return {
    analysis: { depth: measure.depth, cost: measure.cost, nodes: measure.nodes, ...counts },
    slicingViolations: [...analyzer.slicingViolations],
  };
}

/**
 * How deeply fields nest, fragments written out in place, found without recursion (so it cannot
 * exhaust the stack). A fragment is written out again only where it sits deeper than before, so
 * a fragment bomb (wide, not deep) stays linear; fragments on a cycle count as empty, as in the
 * analysis itself.
 */
function nestingDepth(root: SelectionSetNode, fragments: Fragments): number {
  const cyclic = cyclicFragments(fragments);
  const expandedAt = new Map<string, number>();
  const stack: Array<[SelectionSetNode, number]> = [[root, 0]];
  let deepest = 0;
  while (stack.length > 0) {
    const [set, depth] = stack.pop() as [SelectionSetNode, number];
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        if (depth + 1 > deepest) deepest = depth + 1;
        if (selection.selectionSet !== undefined) stack.push([selection.selectionSet, depth + 1]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        stack.push([selection.selectionSet, depth]);
      } else {
        const name = selection.name.value;
        const fragment = fragments[name];
        if (fragment === undefined || cyclic.has(name) || depth <= (expandedAt.get(name) ?? -1)) continue;
        expandedAt.set(name, depth);
        stack.push([fragment.selectionSet, depth]);
      }
    }
  }
  return deepest;
}

/** The fragments that can reach themselves through spreads (invalid, but analysis may precede validation). */
function cyclicFragments(fragments: Fragments): Set<string> {
  const spreads = new Map<string, Set<string>>();
  for (const [name, fragment] of Object.entries(fragments)) {
    const found = new Set<string>();
    const sets: SelectionSetNode[] = [fragment.selectionSet];
    while (sets.length > 0) {
      for (const selection of (sets.pop() as SelectionSetNode).selections) {
        if (selection.kind === Kind.FRAGMENT_SPREAD) found.add(selection.name.value);
        else if (selection.selectionSet !== undefined) sets.push(selection.selectionSet);
      }
    }
    spreads.set(name, found);
  }
  const cyclic = new Set<string>();
  for (const start of spreads.keys()) {
    const seen = new Set<string>();
    const pending = [...(spreads.get(start) ?? [])];
    while (pending.length > 0) {
      const name = pending.pop() as string;
      if (name === start) {
        cyclic.add(start);
        break;
      }
      if (seen.has(name)) continue;
      seen.add(name);
      pending.push(...(spreads.get(name) ?? []));
    }
  }
  return cyclic;
}

function defaultsOnly(args: AnalyzeArgs, definitions: ReadonlyArray<VariableDefinitionNode>): VariableValues {
  const onlyDefaults = coerceVariableValues(args.schema, definitions, {});
  return onlyDefaults.variables ?? noVariables();
}

/** Execution-shaped measures of a selection: what its resolvers would cost. */
interface Measure {
  readonly cost: number;
  readonly depth: number;
  readonly nodes: number;
}

const ZERO: Measure = { cost: 0, depth: 0, nodes: 0 };

/** Document-shaped counts of a selection, as if its fragments were written out. */
interface Counts {
  fields: number;
  aliases: number;
  directives: number;
  incremental: number;
}

type Collected = Map<string, FieldNode[]>;

class Analyzer {
  readonly slicingViolations = new Set<string>();
  private readonly setIds = new Map<SelectionSetNode, number>();
  private readonly collected = new Map<string, Collected>();
  private readonly measured = new Map<string, Measure>();
  private readonly inProgress = new Set<string>();
  private readonly fragmentCounts = new Map<string, Counts | null>();

  /** The coerced variables by name: what slicing arguments and input weights read. */
  private readonly variables: Readonly<Record<string, unknown>>;

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Fragments,
    /** The coerced variables as the installed graphql holds them: what `@skip`/`@include` read. */
    private readonly variableValues: VariableValues,
    private readonly defaultListSize: number,
    private readonly introspection: 'count' | 'ignore' | 'uncosted',
    private readonly onField: ((measure: FieldMeasure) => void) | undefined = undefined,
  ) {
    this.variables = valuesOf(variableValues);
  }

  /**
   * The measure of a group of selection sets (the sub-selections of fields merged under one
   * response name) on one runtime object type. `sized` gives list sizes that a connection's
   * `@listSize(sizedFields:)` hands down to its children.
   */
  measureGroup(sets: ReadonlyArray<SelectionSetNode>, type: GraphQLObjectType, sized: ReadonlyMap<string, number> | null): Measure {
    const key = this.groupKey(sets, type, sized);
    const known = this.measured.get(key);
    if (known !== undefined) return known;
    if (this.inProgress.has(key)) return ZERO;
    this.inProgress.add(key);
    const fields: Collected = new Map();
    for (const set of sets) {
      for (const [responseName, nodes] of this.collect(set, type)) {
        const group = fields.get(responseName);
        if (group === undefined) fields.set(responseName, [...nodes]);
        else for (const node of nodes) if (!group.includes(node)) group.push(node);
      }
    }
    let cost = 0;
    let depth = 0;
    let nodes = 0;
    for (const fieldNodes of fields.values()) {
      const field = this.measureField(type, fieldNodes, sized);
      cost += field.cost;
      nodes += field.nodes;
      if (field.depth > depth) depth = field.depth;
    }
    const measure = { cost, depth, nodes };
    this.inProgress.delete(key);
    this.measured.set(key, measure);
    return measure;
  }

  /** One merged field: its weight, plus what is beneath it times its list size. */
  private measureField(parentType: GraphQLObjectType, fieldNodes: ReadonlyArray<FieldNode>, sized: ReadonlyMap<string, number> | null): Measure {
    if (this.introspection !== 'count' && (fieldNodes[0] as FieldNode).name.value.startsWith('__')) {
      if (this.introspection === 'ignore') return ZERO;
      const measure = this.measureCountedField(parentType, fieldNodes, sized);
      return { cost: 0, depth: measure.depth, nodes: measure.nodes };
    }
    return this.measureCountedField(parentType, fieldNodes, sized);
  }

  private measureCountedField(parentType: GraphQLObjectType, fieldNodes: ReadonlyArray<FieldNode>, sized: ReadonlyMap<string, number> | null): Measure {
    const node = fieldNodes[0] as FieldNode;
    const name = node.name.value;
    const definition = fieldDefinition(this.schema, parentType, name);
    if (definition === undefined) return ZERO;
    const weight = fieldWeight(definition, node, this.variables);
    const listLevels = countListLevels(definition.type);
    const annotation = listSize(definition);
    const slice = annotation === undefined ? undefined : this.sliceSize(parentType, definition, node, annotation.slicingArguments, annotation.requireOneSlicingArgument);
    let multiplier = 1;
    if (listLevels > 0) {
      const handedDown = sized?.get(name);
      const hasSizedFields = (annotation?.sizedFields.length ?? 0) > 0;
      const outer = handedDown ?? (hasSizedFields ? undefined : slice) ?? annotation?.assumedSize ?? this.defaultListSize;
      multiplier = outer * this.defaultListSize ** (listLevels - 1);
    }
    const named = getNamedType(definition.type);
    if (!isCompositeType(named)) {
      this.onField?.({ parentType, fieldNodes, weight, listSize: listLevels > 0 ? multiplier : null, cost: weight });
      return { cost: weight, depth: 1, nodes: listLevels > 0 ? multiplier : 0 };
    }
    let childSizes: Map<string, number> | null = null;
    if (annotation !== undefined && annotation.sizedFields.length > 0) {
      const size = slice ?? annotation.assumedSize ?? this.defaultListSize;
      childSizes = new Map(annotation.sizedFields.map((child) => [child, size]));
    }
    const sets: SelectionSetNode[] = [];
    for (const fieldNode of fieldNodes) {
      if (fieldNode.selectionSet !== undefined && !sets.includes(fieldNode.selectionSet)) sets.push(fieldNode.selectionSet);
    }
    let below = ZERO;
    if (isObjectType(named)) {
      below = this.measureGroup(sets, named, childSizes);
    } else {
      // An abstract type costs what its most expensive possible type costs.
      let cost = 0;
      let depth = 0;
      let nodes = 0;
      for (const possible of this.schema.getPossibleTypes(named)) {
        const measure = this.measureGroup(sets, possible, childSizes);
        cost = Math.max(cost, measure.cost);
        depth = Math.max(depth, measure.depth);
        nodes = Math.max(nodes, measure.nodes);
      }
      below = { cost, depth, nodes };
    }
    this.onField?.({ parentType, fieldNodes, weight, listSize: listLevels > 0 ? multiplier : null, cost: weight + multiplier * below.cost });
    return {
      cost: weight + multiplier * below.cost,
      depth: 1 + below.depth,
      nodes: listLevels > 0 ? multiplier + multiplier * below.nodes : below.nodes,
    };
  }

  /**
   * The size a list field's slicing arguments give it: the argument's literal, its variable's
   * value or the argument's default, the largest when several are given.
   */
  private sliceSize(
    parentType: GraphQLObjectType,
    definition: GraphQLField<unknown, unknown>,
    node: FieldNode,
    slicingArguments: ReadonlyArray<string>,
    requireOne: boolean,
  ): number | undefined {
    let size: number | undefined;
    let given = 0;
    let defaulted = false;
    for (const argumentName of slicingArguments) {
      const argumentNode = node.arguments?.find((argument) => argument.name.value === argumentName);
      // A variable the request leaves out counts as the argument left out (CoerceArgumentValues):
      // the argument's default applies.
      const omitted =
        argumentNode === undefined || (argumentNode.value.kind === Kind.VARIABLE && !(argumentNode.value.name.value in this.variables));
      let value: unknown;
      if (!omitted) {
        value = this.valueOf((argumentNode as { value: ValueNode }).value);
        if (value != null) given++;
      } else {
        value = definition.args.find((argument) => argument.name === argumentName)?.defaultValue;
        if (value != null) defaulted = true;
      }
      if (typeof value === 'number' && Number.isFinite(value) && (size === undefined || value > size)) size = value;
    }
    // A slicing argument with a schema default slices even when the query leaves it out.
    if (given === 0 && defaulted) given = 1;
    if (requireOne && given !== 1) {
      this.slicingViolations.add(
        `Field "${parentType.name}.${definition.name}" must be given exactly one of its slicing arguments (${slicingArguments.join(', ')}); it got ${given}.`,
      );
    }
    return size;
  }

  private valueOf(value: ValueNode): unknown {
    if (value.kind === Kind.VARIABLE) return this.variables[value.name.value];
    if (value.kind === Kind.INT || value.kind === Kind.FLOAT) return Number(value.value);
    return undefined;
  }

  /** CollectFields for one selection set on one runtime type, remembered. */
  private collect(set: SelectionSetNode, type: GraphQLObjectType): Collected {
    const key = 'collect ' + this.idOf(set) + '|' + type.name;
    const known = this.collected.get(key);
    if (known !== undefined) return known;
    if (this.inProgress.has(key)) return new Map();
    this.inProgress.add(key);
    const fields: Collected = new Map();
    this.collectInto(set, type, fields, new Set());
    this.inProgress.delete(key);
    this.collected.set(key, fields);
    return fields;
  }

  /** The walk of `collect`: fields of one selection set, inline fragments in place, spreads collected (and remembered) once. */
  private collectInto(selectionSet: SelectionSetNode, type: GraphQLObjectType, fields: Collected, visited: Set<string>): void {
    for (const selection of selectionSet.selections) {
      if (!this.included(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const responseName = selection.alias?.value ?? selection.name.value;
        const group = fields.get(responseName);
        if (group === undefined) fields.set(responseName, [selection]);
        else group.push(selection);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        if (typeConditionMatches(this.schema, selection, type)) this.collectInto(selection.selectionSet, type, fields, visited);
      } else {
        const name = selection.name.value;
        const fragment = this.fragments[name];
        if (visited.has(name) || fragment === undefined) continue;
        visited.add(name);
        if (!typeConditionMatches(this.schema, fragment, type)) continue;
        for (const [responseName, nodes] of this.collect(fragment.selectionSet, type)) {
          const group = fields.get(responseName);
          if (group === undefined) fields.set(responseName, [...nodes]);
          else group.push(...nodes);
        }
      }
    }
  }

  /**
   * Fields, aliases and directives of a selection set with its fragments written out: each
   * fragment is counted once and its counts reused for every spread of it.
   */
  countSelections(set: SelectionSetNode): Counts {
    const counts: Counts = { fields: 0, aliases: 0, directives: 0, incremental: 0 };
    for (const selection of set.selections) {
      if (!this.included(selection)) continue;
      if (selection.directives !== undefined && selection.directives.length > 0) counts.incremental += this.deliveredLater(selection);
      if (selection.kind === Kind.FIELD) {
        if (this.introspection === 'ignore' && selection.name.value.startsWith('__')) continue;
        counts.fields += 1;
        counts.aliases += selection.alias === undefined ? 0 : 1;
        counts.directives += selection.directives?.length ?? 0;
        if (selection.selectionSet !== undefined) add(counts, this.countSelections(selection.selectionSet));
      } else {
        counts.directives += selection.directives?.length ?? 0;
        if (selection.kind === Kind.INLINE_FRAGMENT) add(counts, this.countSelections(selection.selectionSet));
        else add(counts, this.countFragment(selection));
      }
    }
    return counts;
  }

  private countFragment(spread: FragmentSpreadNode): Counts {
    const name = spread.name.value;
    const known = this.fragmentCounts.get(name);
    if (known === null) return { fields: 0, aliases: 0, directives: 0, incremental: 0 };
    if (known !== undefined) return known;
    const fragment = this.fragments[name];
    if (fragment === undefined) return { fields: 0, aliases: 0, directives: 0, incremental: 0 };
    this.fragmentCounts.set(name, null);
    const counts = this.countSelections(fragment.selectionSet);
    this.fragmentCounts.set(name, counts);
    return counts;
  }

  /**
   * 1 when the selection is a part delivered later: `@defer` on a fragment, `@stream` on a field,
   * whose `if` is not false (a literal, or a variable of the request; one that cannot be read
   * counts, as the limits are checked before variables are coerced).
   */
  private deliveredLater(node: FieldNode | FragmentSpreadNode | InlineFragmentNode): number {
    const name = node.kind === Kind.FIELD ? 'stream' : 'defer';
    const directive = node.directives?.find((candidate) => candidate.name.value === name);
    if (directive === undefined) return 0;
    const condition = directive.arguments?.find((argument) => argument.name.value === 'if')?.value;
    if (condition === undefined) return 1;
    if (condition.kind === Kind.BOOLEAN) return condition.value ? 1 : 0;
    if (condition.kind === Kind.VARIABLE) return this.variables[condition.name.value] === false ? 0 : 1;
    return 1;
  }

  /** `@skip`/`@include` with the request's variables; a condition that cannot be evaluated counts as included. */
  private included(node: FieldNode | FragmentSpreadNode | InlineFragmentNode): boolean {
    if (node.directives === undefined || node.directives.length === 0) return true;
    try {
      return shouldInclude(this.variableValues, node);
    } catch {
      return true;
    }
  }

  private idOf(set: SelectionSetNode): number {
    let id = this.setIds.get(set);
    if (id === undefined) {
      id = this.setIds.size;
      this.setIds.set(set, id);
    }
    return id;
  }

  private groupKey(sets: ReadonlyArray<SelectionSetNode>, type: GraphQLObjectType, sized: ReadonlyMap<string, number> | null): string {
    const ids = sets.map((set) => this.idOf(set)).sort((a, b) => a - b);
    let key = 'measure ' + ids.join(',') + '|' + type.name;
    if (sized !== null) for (const [name, size] of sized) key += `|${name}=${size}`;
    return key;
  }
}

function add(into: Counts, counts: Counts): void {
  into.fields += counts.fields;
  into.aliases += counts.aliases;
  into.directives += counts.directives;
  into.incremental += counts.incremental;
}

function countListLevels(type: GraphQLOutputType): number {
  let levels = 0;
  for (let current: GraphQLOutputType = type; ; ) {
    if (isNonNullType(current)) current = current.ofType;
    else if (isListType(current)) {
      levels++;
      current = current.ofType;
    } else return levels;
  }
}

/**
 * A field's own weight each time it runs: its `@cost`, else its type's, else 1 for a composite
 * and 0 for a leaf; plus the `@cost` of every argument and input field the query gives it.
 */
export function fieldWeight(
  definition: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables: Readonly<Record<string, unknown>>,
): number {
  const named = getNamedType(definition.type);
  let weight = costWeight(definition) ?? costWeight(named) ?? (isCompositeType(named) ? 1 : 0);
  for (const argumentNode of node.arguments ?? []) {
    const argument = definition.args.find((candidate) => candidate.name === argumentNode.name.value);
    if (argument === undefined) continue;
    weight += costWeight(argument) ?? 0;
    weight += inputWeight(argument.type, argumentNode.value, variables);
  }
  return weight;
}

/** The `@cost` of the input fields a literal gives, at any depth (a variable: its value's). */
function inputWeight(type: GraphQLInputType, value: ValueNode, variables: Readonly<Record<string, unknown>>): number {
  const named = getNamedType(type);
  if (!isInputObjectType(named)) return 0;
  switch (value.kind) {
    case Kind.VARIABLE:
      return inputValueWeight(type, variables[value.name.value]);
    case Kind.LIST:
      return value.values.reduce((sum, item) => sum + inputWeight(type, item, variables), 0);
    case Kind.OBJECT: {
      let weight = 0;
      for (const field of value.fields) {
        const definition = named.getFields()[field.name.value];
        if (definition !== undefined) weight += (costWeight(definition) ?? 0) + inputWeight(definition.type, field.value, variables);
      }
      return weight;
    }
    default:
      return 0;
  }
}

/** The `@cost` of the input fields a variable's (coerced) value gives, at any depth. */
function inputValueWeight(type: GraphQLInputType, value: unknown): number {
  const named = getNamedType(type);
  if (!isInputObjectType(named) || value === null || typeof value !== 'object') return 0;
  if (Array.isArray(value)) return value.reduce((sum: number, item: unknown) => sum + inputValueWeight(type, item), 0);
  let weight = 0;
  for (const [name, fieldValue] of Object.entries(value)) {
    const definition = named.getFields()[name];
    if (definition !== undefined) weight += (costWeight(definition) ?? 0) + inputValueWeight(definition.type, fieldValue);
  }
  return weight;
}
