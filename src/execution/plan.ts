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
import type { GeneratedReader } from './compileFields.ts';
import type { GeneratedWriter } from './compileStringify.ts';
import { isCoercedBoolean, isCoercedFloat, isCoercedInt, isCoercedString } from './leafValues.ts';
import { plainReadOf } from './plainReads.ts';
import type { PlainRead } from './plainReads.ts';
import { fieldDefinition } from '../language/fieldDefinition.ts';
import { selectOperation } from '../language/selectOperation.ts';
import { collectFields, containsVariable, dependsOnVariables } from '../language/collectFields.ts';
import { usesIncrementalDelivery } from '../language/collectDeferredFields.ts';
import type { CollectedFields, Fragments } from '../language/collectFields.ts';
import { argumentValues, outputCoercion, propagatesErrors } from '../language/graphqlCompat.ts';
import type { VariableValues } from '../language/graphqlCompat.ts';
import { fastClass } from '../jsutils/fastClass.ts';
import { resultConstructor } from './resultObjects.ts';
import type { ResultConstructor } from './resultObjects.ts';

export type ArgumentValues = Record<string, unknown>;

/** How to complete a value of one output type (GraphQL spec, "Value Completion": CompleteValue), decided once. */
export type ValuePlan = LeafPlan | ListPlan | ObjectPlan | AbstractPlan | StreamPlan;

export const enum ValueKind {
  Leaf,
  List,
  Object,
  Abstract,
  /** A list field written with `@stream` (only in operations that use incremental delivery). */
  Stream,
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

/**
 * A list field with `@stream`: completed as a list (ListPlan) when nothing streams it, else by
 * the incremental executor (execution/incremental/), which hands its later items out one payload
 * at a time. Planned only where the document uses incremental delivery, so other operations
 * never meet this kind.
 */
export interface StreamPlan extends ValuePlanBase {
  readonly kind: ValueKind.Stream;
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
   * built-in scalar or an enum, or a list of them: how to store a value that is already in shape
   * (the plain-read fast path, plainReads.ts). Null when not such a field.
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
    const value = planValue(definition.type, operation.propagatesErrors);
    this.value = operation.incremental && value.kind === ValueKind.List && hasStream(node) ? { ...value, kind: ValueKind.Stream } : value;
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
  /** Makes this plan's result objects: every response name, in order, null until stored (resultObjects.ts). */
  readonly Result: ResultConstructor;
  /** The generated reader of `fields`: kept and written by compileFields.ts only. */
  readonly reader: GeneratedReader = { uses: 0, compiled: undefined };
  /** The generated JSON writer of its result objects: kept and written by compileStringify.ts only. */
  readonly json: GeneratedWriter = { writes: 0, writer: undefined };
  private readonly operation: OperationPlan;
  /** The selection sets collected (incremental delivery collects them again, with `@defer`). */
  readonly selectionSets: ReadonlyArray<SelectionSetNode>;
  private readonly variants: Map<string, ReadonlyArray<FieldPlan>> | undefined;

  constructor(operation: OperationPlan, type: GraphQLObjectType, selectionSets: ReadonlyArray<SelectionSetNode>) {
    this.operation = operation;
    this.type = type;
    this.selectionSets = selectionSets;
    if (dependsOnVariables(operation.fragments, selectionSets)) {
      this.variants = new Map();
      this.nullPrototype = false;
      this.Result = resultConstructor(undefined);
    } else {
      const fields = this.planFields(collectFields(operation.schema, operation.fragments, undefined, type, selectionSets));
      this.fields = fields;
      this.nullPrototype = fields.some((field) => field.responseName === '__proto__');
      this.Result = resultConstructor(fields.map((field) => field.responseName));
    }
  }

  /** The generated JSON writer, as compileStringify.ts decided it (undefined: not yet; null: none). */
  get writer(): GeneratedWriter['writer'] {
    return this.json.writer;
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

/**
 * Documents built without locations still need a stable identity per node: a number given to
 * each such node the first time it is met, kept as long as the node lives. The numbers are only
 * compared with each other (variantKey), so which number a node gets changes no result.
 */
const nodeIds = new WeakMap<FieldNode, number>();
let nextNodeId = 0;

function nodeId(node: FieldNode): string {
  let id = nodeIds.get(node);
  if (id === undefined) {
    id = nextNodeId++;
    nodeIds.set(node, id);
  }
  return 'n' + id;
}

/** Whether a field node carries `@stream` (its `if` is read when the field executes). */
function hasStream(node: FieldNode): boolean {
  return node.directives?.some((directive) => directive.name.value === 'stream') ?? false;
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
 * Result coercion of a leaf type. For the built-in scalars a value already of the right type is
 * its own result (leafValues.ts), which it nearly always is; anything else takes
 * the type's own coercion as the installed graphql calls it (graphqlCompat.ts), so the result and
 * the error messages stay graphql-js's.
 */
function serializerFor(type: GraphQLLeafType): (value: unknown) => unknown {
  const coerce = outputCoercion(type);
  switch (type) {
    case GraphQLString:
    case GraphQLID:
      return (value) => (isCoercedString(value) ? value : coerce(value));
    case GraphQLBoolean:
      return (value) => (isCoercedBoolean(value) ? value : coerce(value));
    case GraphQLInt:
      return (value) => (isCoercedInt(value) ? value : coerce(value));
    case GraphQLFloat:
      return (value) => (isCoercedFloat(value) ? value : coerce(value));
    default:
      return coerce;
  }
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
  /** The document the operation is in (what the tracing channels publish: language/tracingChannels.ts). */
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  readonly fragments: Fragments;
  readonly rootType: GraphQLObjectType | undefined;
  readonly declaresVariables: boolean;
  /**
   * Whether a field error moves to the nearest nullable position (GraphQL spec, "Handling
   * Execution Errors"). Always, but in an
   * operation marked `@experimental_disableErrorPropagation` under graphql 17 (graphqlCompat.ts),
   * where every error stays where it happened.
   */
  readonly propagatesErrors: boolean;
  /** The caller's access this plan was made for; null: every field may run. */
  readonly access: FieldAccess | null;
  /**
   * Whether the document uses `@defer` or `@stream` anywhere (decided once per document): only
   * such operations plan `@stream` fields as StreamPlans, and only they may be run by the
   * incremental executor. Every other operation runs exactly as before.
   */
  readonly incremental: boolean;
  /** Root fields; built on first use so that a missing root type surfaces as an execution error. */
  private rootSelections: SelectionPlan | undefined;
  /** The same operation planned for each FieldAccess met, kept while that access object lives. */
  private byAccess: WeakMap<FieldAccess, OperationPlan> | undefined;

  constructor(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, fragments: Fragments, access: FieldAccess | null = null) {
    this.schema = schema;
    this.document = document;
    this.operation = operation;
    this.fragments = fragments;
    this.rootType = schema.getRootType(operation.operation) ?? undefined;
    this.declaresVariables = (operation.variableDefinitions?.length ?? 0) > 0;
    this.propagatesErrors = propagatesErrors(operation);
    this.access = access;
    this.incremental = usesIncrementalDelivery(operation) || Object.values(fragments).some((fragment) => usesIncrementalDelivery(fragment));
  }

  /** The root selection set's plan, made when first asked for (small enough for V8 to inline on every execution's path). */
  get root(): SelectionPlan {
    return this.rootSelections ?? this.planRoot();
  }

  private planRoot(): SelectionPlan {
    return (this.rootSelections = new SelectionPlan(this, this.rootType as GraphQLObjectType, [this.operation.selectionSet]));
  }

  /** This operation planned for a caller's access (this plan itself when there is none to check). */
  forAccess(access: FieldAccess | null | undefined): OperationPlan {
    if (access == null || access === this.access) return this;
    this.byAccess ??= new WeakMap();
    let plan = this.byAccess.get(access);
    if (plan === undefined) {
      plan = new OperationPlan(this.schema, this.document, this.operation, this.fragments, access);
      this.byAccess.set(access, plan);
    }
    return plan;
  }
}
fastClass(OperationPlan);

/** The operation to run, or the request errors graphql-js gives when it cannot be chosen. */
export type OperationChoice = OperationPlan | ReadonlyArray<GraphQLError>;

/**
 * Whether the choice is the errors: an array test, which costs V8 the same however the class
 * was compiled (see jsutils/fastClass.ts for what tsx does to `instanceof OperationPlan`).
 */
export function isPlanError(choice: OperationChoice): choice is ReadonlyArray<GraphQLError> {
  return Array.isArray(choice);
}

/**
 * The plans of every (document, schema, operation name) planned so far, kept on the document and
 * the schema (WeakMaps: a plan lives as long as both do), and in front of them the most recent
 * one: the common caller executes one document again and again, and then finds its plan with
 * three identity checks instead of two WeakMap lookups and a Map lookup. (That one entry keeps
 * its document alive until another document is planned.)
 */
class PlanCache {
  private recent: { schema: GraphQLSchema; document: DocumentNode; name: string | null; choice: OperationChoice } | null = null;
  private readonly byDocument = new WeakMap<DocumentNode, WeakMap<GraphQLSchema, Map<string | null, OperationChoice>>>();

  get(schema: GraphQLSchema, document: DocumentNode, name: string | null): OperationChoice {
    const recent = this.recent;
    if (recent !== null && recent.document === document && recent.schema === schema && recent.name === name) return recent.choice;
    const choice = this.lookUp(schema, document, name);
    this.recent = { schema, document, name, choice };
    return choice;
  }

  private lookUp(schema: GraphQLSchema, document: DocumentNode, name: string | null): OperationChoice {
    let bySchema = this.byDocument.get(document);
    if (bySchema === undefined) {
      bySchema = new WeakMap();
      this.byDocument.set(document, bySchema);
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
      if (!isPlanError(choice)) byName.set(name, choice);
    }
    return choice;
  }
}

/** The plans of this process (see PlanCache). */
const plans = new PlanCache();

/** The cached plan for this (schema, document, operation name), planning it on first use. */
export function planOperation(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined): OperationChoice {
  return plans.get(schema, document, operationName ?? null);
}

/** Plans the operation chosen by name (GraphQL spec, "Executing Requests": GetOperation), or returns the request error for why none can be. */
function chooseOperation(schema: GraphQLSchema, document: DocumentNode, operationName: string | null): OperationChoice {
  const selected = selectOperation(document, operationName);
  if (selected instanceof GraphQLError) return [selected];
  return new OperationPlan(schema, document, selected.operation, selected.fragments);
}
