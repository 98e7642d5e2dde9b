/**
 * The execution plan: everything about running a document that does not depend on the data.
 *
 * graphql-js re-derives, for every object it completes, which fields to run (CollectFields), each
 * field's definition, its arguments and the shape of its value. None of that changes between
 * objects, or between requests that send the same document, so we work it out once per
 * (schema, document, operation) and keep it on the document (a WeakMap, so it dies with it):
 *
 *   OperationPlan ── root SelectionPlan ── FieldPlan ── ValuePlan (how to complete the value)
 *                                             └── SelectionPlan per runtime object type (lazily)
 *
 * Plans are built lazily, as execution first reaches them, so a query over a large or recursive
 * schema only plans what it touches. Execution (execute.ts) then never walks the AST again,
 * except once per request for selection sets whose `@skip`/`@include` read variables.
 */
import {
  GraphQLError,
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLString,
  Kind,
  TypeNameMetaFieldDef,
  getNamedType,
  isScalarType,
  isSpecifiedScalarType,
  isAbstractType,
  isEnumType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
} from 'graphql';
import type {
  DocumentNode,
  FieldNode,
  GraphQLAbstractType,
  GraphQLField,
  GraphQLFieldResolver,
  GraphQLInputType,
  GraphQLLeafType,
  GraphQLObjectType,
  GraphQLOutputType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
  ValueNode,
} from 'graphql';
import { fieldWeight } from '../analysis/analyze.ts';
import { isPlainArray } from '../jsutils/isPlainArray.ts';
import type { CompiledFields } from './compileFields.ts';
import type { ObjectWriter } from './compileStringify.ts';
import { fieldDefinition } from '../language/fieldDefinition.ts';
import { selectOperation } from '../language/selectOperation.ts';
import { collectFields, containsVariable, dependsOnVariables } from '../language/collectFields.ts';
import type { CollectedFields, Fragments } from '../language/collectFields.ts';
import { argumentValues, hasBuiltInEnumCoercion, outputCoercion, propagatesErrors } from '../language/graphqlCompat.ts';
import type { VariableValues } from '../language/graphqlCompat.ts';

export type ArgumentValues = Record<string, unknown>;

/** How to complete a value of one output type (spec 6.4.3 CompleteValue), decided once. */
export type ValuePlan = LeafPlan | ListPlan | ObjectPlan | AbstractPlan;

export const enum ValueKind {
  Leaf,
  List,
  Object,
  Abstract,
}

interface ValuePlanBase {
  /** Whether the type forbids null here (it is wrapped in Non-Null): completing null is an error. */
  readonly nonNull: boolean;
  /**
   * Whether a field error at this position stops here, null in its place: the type is not
   * Non-Null, or errors do not propagate in this operation (OperationPlan.propagatesErrors).
   */
  readonly nullable: boolean;
  /** Whether completing it needs its own response path (lists and composites: their children do). */
  readonly needsPath: boolean;
}

export interface LeafPlan extends ValuePlanBase {
  readonly kind: ValueKind.Leaf;
  readonly type: GraphQLLeafType;
  /** The scalar's or enum's serializer, with a fast path for values already in shape. */
  readonly serialize: (value: unknown) => unknown;
}

export interface ListPlan extends ValuePlanBase {
  readonly kind: ValueKind.List;
  readonly item: ValuePlan;
}

export interface ObjectPlan extends ValuePlanBase {
  readonly kind: ValueKind.Object;
  readonly type: GraphQLObjectType;
}

export interface AbstractPlan extends ValuePlanBase {
  readonly kind: ValueKind.Abstract;
  readonly type: GraphQLAbstractType;
}

/** One response name of one selection plan: a field to resolve and complete. */
export class FieldPlan {
  readonly responseName: string;
  readonly fieldName: string;
  readonly fieldNodes: ReadonlyArray<FieldNode>;
  readonly parentType: GraphQLObjectType;
  readonly definition: GraphQLField<unknown, unknown>;
  readonly returnType: GraphQLOutputType;
  /** The field's own resolver; undefined means the default resolver (a property or a method). */
  readonly resolve: GraphQLFieldResolver<unknown, unknown> | undefined;
  /** `__typename` needs no resolver call at all. */
  readonly isTypename: boolean;
  /**
   * For a field read straight off its parent (no resolver, no arguments) whose type is a
   * built-in scalar or an enum, or a list of them: how to store a value that is already in shape.
   * execute.ts takes this shortcut; anything else goes the general way. Null when not such a field.
   */
  readonly plainRead: PlainRead | null;
  /**
   * Null when the caller may run the field (or nothing is checked); else the error it fails
   * with, at its path, without its resolver being called (see FieldAccess).
   */
  readonly denial: GraphQLError | null;
  readonly value: ValuePlan;
  /** Whether the field declares arguments (then they are coerced even for the default resolver). */
  readonly hasArguments: boolean;
  /**
   * Arguments made only of literals are coerced here, once; `undefined` when they read
   * variables (coerced once per request instead). A coercion failure is kept and raised as a
   * field error each time the field runs, exactly where graphql-js would raise it.
   */
  readonly staticArguments: ArgumentValues | undefined;
  readonly argumentsError: unknown;
  /** Whether arguments must be coerced per request (they read variables). */
  readonly argumentsReadVariables: boolean;
  /**
   * Whether arguments must be coerced afresh for every call, as graphql-js coerces them: when a
   * literal builds an input object or a list, or is read by a custom scalar's parseLiteral, each
   * call gets its own value, which a resolver may change without the next call seeing it.
   */
  readonly argumentsPerCall: boolean;
  private readonly operation: OperationPlan;
  private plainWeight: number | undefined;
  private selections: SelectionPlan | undefined;
  private selectionsByType: Map<GraphQLObjectType, SelectionPlan> | undefined;

  constructor(
    operation: OperationPlan,
    parentType: GraphQLObjectType,
    responseName: string,
    fieldNodes: ReadonlyArray<FieldNode>,
    definition: GraphQLField<unknown, unknown>,
  ) {
    const node = fieldNodes[0] as FieldNode;
    this.operation = operation;
    this.responseName = responseName;
    this.fieldName = definition.name;
    this.fieldNodes = fieldNodes;
    this.parentType = parentType;
    this.definition = definition;
    this.returnType = definition.type;
    this.resolve = definition.resolve;
    this.isTypename = definition === TypeNameMetaFieldDef;
    this.value = planValue(definition.type, operation.propagatesErrors);
    this.hasArguments = definition.args.length > 0 || (node.arguments?.length ?? 0) > 0;
    this.denial = operation.access === null ? null : operation.access.denial(parentType, definition);
    // A denied field is never read: it takes the general way, which refuses it.
    this.plainRead = definition.resolve === undefined && !this.hasArguments && this.denial === null ? plainReadOf(definition.type) : null;
    const readsVariables = (node.arguments ?? []).some((argument) => containsVariable(argument.value));
    let staticArguments: ArgumentValues | undefined;
    let argumentsError: unknown;
    if (this.hasArguments && !readsVariables) {
      try {
        staticArguments = argumentValues(definition, node, undefined);
      } catch (error) {
        argumentsError = error;
      }
    }
    this.staticArguments = staticArguments;
    this.argumentsError = argumentsError;
    this.argumentsReadVariables = this.hasArguments && readsVariables;
    this.argumentsPerCall = (node.arguments ?? []).some((argument) => buildsValue(argument.value, definition.args.find((arg) => arg.name === argument.name.value)?.type));
  }

  /** The cost weight of a plain read (it has no arguments, so the weight is fixed), worked out once. */
  get plainReadWeight(): number {
    return (this.plainWeight ??= this.introspects ? 0 : fieldWeight(this.definition, this.fieldNodes[0] as FieldNode, {}));
  }

  /**
   * Whether this is introspection (`__schema`, `__type`, or any field of the introspection
   * types): never costed, as the server's analysis leaves it out of the cost (analyze.ts, 'uncosted').
   */
  get introspects(): boolean {
    return this.fieldName.startsWith('__') || this.parentType.name.startsWith('__');
  }

  /** The fields to run on a value of `type` (the field's object type, or a runtime type of its abstract type). */
  selectionsFor(type: GraphQLObjectType): SelectionPlan {
    if (this.selections !== undefined && this.selections.type === type) return this.selections;
    if (this.selections === undefined) {
      this.selections = this.planSelections(type);
      return this.selections;
    }
    this.selectionsByType ??= new Map();
    let plan = this.selectionsByType.get(type);
    if (plan === undefined) {
      plan = this.planSelections(type);
      this.selectionsByType.set(type, plan);
    }
    return plan;
  }

  /** The selection plans made for this field so far, planning none: what a trace reports (trace.ts). */
  plannedSelections(): SelectionPlan[] {
    const planned: SelectionPlan[] = this.selections === undefined ? [] : [this.selections];
    if (this.selectionsByType !== undefined) planned.push(...this.selectionsByType.values());
    return planned;
  }

  private planSelections(type: GraphQLObjectType): SelectionPlan {
    const selectionSets: SelectionSetNode[] = [];
    for (const node of this.fieldNodes) {
      if (node.selectionSet) selectionSets.push(node.selectionSet);
    }
    return new SelectionPlan(this.operation, type, selectionSets);
  }
}

/**
 * The fields to execute on objects of one runtime type for one group of selection sets. When
 * its `@skip`/`@include` read variables, the field list is made per request (and reused for
 * every later request whose conditions came out the same way).
 */
export class SelectionPlan {
  readonly type: GraphQLObjectType;
  /** The field list, when it does not depend on variables. */
  readonly fields: ReadonlyArray<FieldPlan> | undefined;
  /** Whether result objects need a null prototype (a response name is `__proto__`). */
  readonly nullPrototype: boolean;
  /** Every response name set to null, in order: result objects are cloned from it. */
  readonly template: Readonly<Record<string, null>> | undefined;
  /**
   * The generated code for `fields` (compileFields.ts): undefined until decided, null when it
   * is not compiled. Set by execute.ts after `uses` objects were completed without it.
   */
  compiled: CompiledFields<never> | null | undefined = undefined;
  uses = 0;
  /** The generated JSON writer of its result objects (compileStringify.ts): undefined until decided, null when not compiled. */
  writer: ObjectWriter | null | undefined = undefined;
  writes = 0;
  private readonly operation: OperationPlan;
  private readonly selectionSets: ReadonlyArray<SelectionSetNode>;
  private readonly variants: Map<string, ReadonlyArray<FieldPlan>> | undefined;

  constructor(operation: OperationPlan, type: GraphQLObjectType, selectionSets: ReadonlyArray<SelectionSetNode>) {
    this.operation = operation;
    this.type = type;
    this.selectionSets = selectionSets;
    if (dependsOnVariables(operation.fragments, selectionSets)) {
      this.variants = new Map();
      this.nullPrototype = false;
    } else {
      const fields = this.planFields(collectFields(operation.schema, operation.fragments, undefined, type, selectionSets));
      this.fields = fields;
      this.nullPrototype = fields.some((field) => field.responseName === '__proto__');
      if (!this.nullPrototype) {
        const template: Record<string, null> = {};
        for (const field of fields) template[field.responseName] = null;
        this.template = template;
      }
    }
  }

  /**
   * The field list for the given (coerced) variables. Throws what graphql-js throws when a
   * directive's argument cannot be coerced (e.g. `@skip(if: $v)` with `$v` explicitly null).
   */
  fieldsForVariables(variableValues: VariableValues): ReadonlyArray<FieldPlan> {
    if (this.fields !== undefined) return this.fields;
    const collected = collectFields(this.operation.schema, this.operation.fragments, variableValues, this.type, this.selectionSets);
    const key = variantKey(collected);
    const variants = this.variants as Map<string, ReadonlyArray<FieldPlan>>;
    let fields = variants.get(key);
    if (fields === undefined) {
      fields = this.planFields(collected);
      variants.set(key, fields);
    }
    return fields;
  }

  private planFields(collected: CollectedFields): ReadonlyArray<FieldPlan> {
    const fields: FieldPlan[] = [];
    for (const [responseName, fieldNodes] of collected) {
      const definition = fieldDefinition(this.operation.schema, this.type, (fieldNodes[0] as FieldNode).name.value);
      // A field the type lacks cannot pass validation; like graphql-js, leave it out.
      if (definition !== undefined) fields.push(new FieldPlan(this.operation, this.type, responseName, fieldNodes, definition));
    }
    return fields;
  }
}

/**
 * Two collections with the same response names bound to the same field nodes run identically.
 * Field nodes are identified by their position in the source text.
 */
function variantKey(collected: CollectedFields): string {
  let key = '';
  for (const [responseName, nodes] of collected) {
    key += responseName;
    for (const node of nodes) key += ':' + (node.loc?.start ?? nodeId(node));
    key += ';';
  }
  return key;
}

const nodeIds = new WeakMap<FieldNode, number>();
let nextNodeId = 0;
/** Documents built without locations still need a stable identity per node. */
function nodeId(node: FieldNode): string {
  let id = nodeIds.get(node);
  if (id === undefined) {
    id = nextNodeId++;
    nodeIds.set(node, id);
  }
  return 'n' + id;
}

/**
 * Whether coercing a literal makes a value of its own: an input object or a list literal, or a
 * literal read by a custom scalar. (Variables are coerced once per request, in graphql-js too.)
 */
function buildsValue(node: ValueNode, type: GraphQLInputType | undefined): boolean {
  if (node.kind === Kind.OBJECT || node.kind === Kind.LIST) return true;
  if (node.kind === Kind.VARIABLE || node.kind === Kind.NULL || type === undefined) return false;
  const named = getNamedType(type);
  return isScalarType(named) && !isSpecifiedScalarType(named);
}

function planValue(type: GraphQLOutputType, propagatesErrors: boolean): ValuePlan {
  const nonNull = isNonNullType(type);
  const nullable = !nonNull || !propagatesErrors;
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    return { kind: ValueKind.List, nonNull, nullable, needsPath: true, item: planValue(inner.ofType, propagatesErrors) };
  }
  if (isLeafType(inner)) {
    return { kind: ValueKind.Leaf, nonNull, nullable, needsPath: false, type: inner, serialize: serializerFor(inner) };
  }
  if (isObjectType(inner)) {
    return { kind: ValueKind.Object, nonNull, nullable, needsPath: true, type: inner };
  }
  if (isAbstractType(inner)) {
    return { kind: ValueKind.Abstract, nonNull, nullable, needsPath: true, type: inner };
  }
  throw new TypeError(`Cannot plan a value of unexpected output type: ${String(inner)}.`);
}

/**
 * Output coercion (CoerceResult) for the built-in scalars skips the general coercion when the
 * value already has the right JavaScript type, which it nearly always does; anything else takes
 * the type's own coercion as the installed graphql calls it (graphqlCompat.ts), so the result and
 * the error messages stay graphql-js's.
 */
function serializerFor(type: GraphQLLeafType): (value: unknown) => unknown {
  const coerce = outputCoercion(type);
  switch (type) {
    case GraphQLString:
    case GraphQLID:
      return (value) => (typeof value === 'string' ? value : coerce(value));
    case GraphQLBoolean:
      return (value) => (typeof value === 'boolean' ? value : coerce(value));
    case GraphQLInt:
      return (value) => (typeof value === 'number' && (value | 0) === value ? value : coerce(value));
    case GraphQLFloat:
      return (value) => (typeof value === 'number' && Number.isFinite(value) ? value : coerce(value));
    default:
      return coerce;
  }
}

export const enum PlainLeaf {
  String,
  Int,
  Float,
  Boolean,
  Enum,
}

/** What `PlainRead.completed` returns for a value that must go the general way. */
export const NOT_PLAIN: unique symbol = Symbol('not plain');

/**
 * Completes a value read straight off its parent when it is already what serialization would
 * return: a string for String and ID, a 32-bit integer for Int, a finite number for Float, a
 * boolean for Boolean, a known internal value for an enum (mapped to its name), null where the
 * type allows it, or an array of those for a list. Anything else (a promise, an Error, a value
 * needing coercion, a null where Non-Null is required) gets NOT_PLAIN, and the general
 * completion produces the value or the very error graphql-js would.
 */
export class PlainRead {
  readonly leaf: PlainLeaf;
  /** Whether the field's own type is nullable. */
  readonly nullable: boolean;
  /** Whether the field is a list of leaves (one level), rather than a leaf. */
  readonly list: boolean;
  readonly itemNullable: boolean;
  /** For enums: internal value -> name, built as graphql-js builds its lookup (the last value wins). */
  private readonly enumNames: Map<unknown, string> | undefined;

  constructor(leaf: PlainLeaf, nullable: boolean, list: boolean, itemNullable: boolean, enumType: GraphQLEnumType | undefined) {
    this.leaf = leaf;
    this.nullable = nullable;
    this.list = list;
    this.itemNullable = itemNullable;
    this.enumNames = enumType === undefined ? undefined : new Map(enumType.getValues().map((value) => [value.value, value.name]));
  }

  completed(value: unknown): unknown {
    if (value == null) return this.nullable ? null : NOT_PLAIN;
    if (!this.list) return this.leafValue(value);
    // An array with a `then` method is a thenable to graphql-js: the general way awaits it.
    if (!isPlainArray(value) || typeof (value as { then?: unknown }).then === 'function') return NOT_PLAIN;
    if (this.leaf !== PlainLeaf.Enum) {
      // Most lists need no mapping at all: check every item, then copy the array in one go.
      let i = 0;
      for (; i < value.length; i++) {
        const item: unknown = value[i];
        if (item === null ? !this.itemNullable : this.leafValue(item) === NOT_PLAIN) break;
      }
      if (i === value.length) return value.slice();
    }
    const items: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      let completed: unknown;
      if (item == null) {
        if (!this.itemNullable) return NOT_PLAIN;
        completed = null;
      } else {
        completed = this.leafValue(item);
        if (completed === NOT_PLAIN) return NOT_PLAIN;
      }
      items.push(completed);
    }
    return items;
  }

  private leafValue(value: unknown): unknown {
    switch (this.leaf) {
      case PlainLeaf.String:
        return typeof value === 'string' ? value : NOT_PLAIN;
      case PlainLeaf.Int:
        // The typeof first: `|` on a BigInt or a Symbol throws.
        return typeof value === 'number' && (value | 0) === value ? value : NOT_PLAIN;
      case PlainLeaf.Float:
        return typeof value === 'number' && Number.isFinite(value) ? value : NOT_PLAIN;
      case PlainLeaf.Boolean:
        return typeof value === 'boolean' ? value : NOT_PLAIN;
      case PlainLeaf.Enum:
        // An Error is a field error, and a function a method to call, even if it is an internal value.
        if (typeof value === 'function' || value instanceof Error) return NOT_PLAIN;
        return (this.enumNames as Map<unknown, string>).get(value) ?? NOT_PLAIN;
    }
  }
}

function plainReadOf(type: GraphQLOutputType): PlainRead | null {
  const nullable = !isNonNullType(type);
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    const itemNullable = !isNonNullType(inner.ofType);
    const item = isNonNullType(inner.ofType) ? inner.ofType.ofType : inner.ofType;
    const leaf = plainLeafOf(item);
    return leaf === null ? null : new PlainRead(leaf, nullable, true, itemNullable, isEnumType(item) ? item : undefined);
  }
  const leaf = plainLeafOf(inner);
  return leaf === null ? null : new PlainRead(leaf, nullable, false, false, isEnumType(inner) ? inner : undefined);
}

/** The built-in scalars, and enums whose output coercion is graphql-js's own (not overridden). */
function plainLeafOf(type: GraphQLOutputType): PlainLeaf | null {
  switch (type) {
    case GraphQLString:
    case GraphQLID:
      return PlainLeaf.String;
    case GraphQLInt:
      return PlainLeaf.Int;
    case GraphQLFloat:
      return PlainLeaf.Float;
    case GraphQLBoolean:
      return PlainLeaf.Boolean;
  }
  if (isEnumType(type) && hasBuiltInEnumCoercion(type)) return PlainLeaf.Enum;
  return null;
}

/**
 * Which fields a caller may run, decided when a plan is made (security/access.ts makes these
 * from a schema's authorization rules). One object stands for one set of grants, and plans are
 * kept per object (OperationPlan.forAccess): an allowed field then costs nothing at run time,
 * and a denied one is planned as a field that fails without running its resolver.
 */
export interface FieldAccess {
  /** Null when the field may run; else the error to report at its path. */
  denial(parentType: GraphQLObjectType, field: GraphQLField<unknown, unknown>): GraphQLError | null;
}

/** Everything fixed for one operation of one document against one schema (and one FieldAccess). */
export class OperationPlan {
  readonly schema: GraphQLSchema;
  readonly operation: OperationDefinitionNode;
  readonly fragments: Fragments;
  readonly rootType: GraphQLObjectType | undefined;
  readonly declaresVariables: boolean;
  /**
   * Whether a field error moves to the nearest nullable position (spec 6.4.4). Always, but in an
   * operation marked `@experimental_disableErrorPropagation` under graphql 17 (graphqlCompat.ts),
   * where every error stays where it happened.
   */
  readonly propagatesErrors: boolean;
  /** The caller's access this plan was made for; null: every field may run. */
  readonly access: FieldAccess | null;
  /** Root fields; built on first use so that a missing root type surfaces as an execution error. */
  private rootSelections: SelectionPlan | undefined;
  /** The same operation planned for each FieldAccess met, kept while that access object lives. */
  private byAccess: WeakMap<FieldAccess, OperationPlan> | undefined;

  constructor(schema: GraphQLSchema, operation: OperationDefinitionNode, fragments: Fragments, access: FieldAccess | null = null) {
    this.schema = schema;
    this.operation = operation;
    this.fragments = fragments;
    this.rootType = schema.getRootType(operation.operation) ?? undefined;
    this.declaresVariables = (operation.variableDefinitions?.length ?? 0) > 0;
    this.propagatesErrors = propagatesErrors(operation);
    this.access = access;
  }

  get root(): SelectionPlan {
    return (this.rootSelections ??= new SelectionPlan(this, this.rootType as GraphQLObjectType, [this.operation.selectionSet]));
  }

  /** This operation planned for a caller's access (this plan itself when there is none to check). */
  forAccess(access: FieldAccess | null | undefined): OperationPlan {
    if (access == null || access === this.access) return this;
    this.byAccess ??= new WeakMap();
    let plan = this.byAccess.get(access);
    if (plan === undefined) {
      plan = new OperationPlan(this.schema, this.operation, this.fragments, access);
      this.byAccess.set(access, plan);
    }
    return plan;
  }
}

/** The operation to run, or the request errors graphql-js gives when it cannot be chosen. */
export type OperationChoice = OperationPlan | ReadonlyArray<GraphQLError>;

const planCache = new WeakMap<DocumentNode, WeakMap<GraphQLSchema, Map<string | null, OperationChoice>>>();

/**
 * The last plan handed out, for the common case of one document executed again and again: one
 * identity check instead of two WeakMap lookups and a Map lookup. (It keeps that one document
 * alive until another is executed.)
 */
let last: { schema: GraphQLSchema; document: DocumentNode; name: string | null; choice: OperationChoice } | null = null;

/** The cached plan for this (schema, document, operation name), planning it on first use. */
export function planOperation(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): OperationChoice {
  const name = operationName ?? null;
  if (last !== null && last.document === document && last.schema === schema && last.name === name) return last.choice;
  const choice = cachedPlan(schema, document, name);
  last = { schema, document, name, choice };
  return choice;
}

function cachedPlan(schema: GraphQLSchema, document: DocumentNode, name: string | null): OperationChoice {
  let bySchema = planCache.get(document);
  if (bySchema === undefined) {
    bySchema = new WeakMap();
    planCache.set(document, bySchema);
  }
  let byName = bySchema.get(schema);
  if (byName === undefined) {
    byName = new Map();
    bySchema.set(schema, byName);
  }
  let choice = byName.get(name);
  if (choice === undefined) {
    choice = chooseOperation(schema, document, name);
    // Only names the document defines are kept: made-up ones (a server's clients can send any)
    // would otherwise grow the cache without bound. Their errors are cheap to find again.
    if (choice instanceof OperationPlan) byName.set(name, choice);
  }
  return choice;
}

/** Plans the operation chosen by name (spec 6.1), or returns the request error for why none can be. */
function chooseOperation(schema: GraphQLSchema, document: DocumentNode, operationName: string | null): OperationChoice {
  const selected = selectOperation(document, operationName);
  if (selected instanceof GraphQLError) return [selected];
  return new OperationPlan(schema, selected.operation, selected.fragments);
}
