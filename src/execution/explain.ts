/**
 * explainOperation: what the engine decides about an operation before any resolver runs, as
 * data and as a readable tree (`npm run explain`, src/demo/explain.ts).
 *
 * Why: a learner reading plan.ts wants to see its decisions for a query of their own: each
 * selection set with its type, each field with what the executor does with it (calls a resolver,
 * reads a property and stores it as it is, or reads it and completes it the general way), the
 * fields merged from several selections, the fragments that fed each set, which sets would run as
 * generated code (compileFields.ts) and whether results would be written by a generated JSON
 * writer (compileStringify.ts), and what the cost analyzer (analysis/analyze.ts) charges for each
 * field. A trace (trace.ts) shows what one execution then did.
 *
 * It plans the operation afresh, on a plan of its own, so explaining never adds to or changes the
 * plans the executor caches. Which loader a resolver loads from is in the resolver's code, so
 * batching is explained only when the caller declares it (`loaders`): then the rounds follow the
 * scheduler's rule (batching/scheduler.ts), one more round below each field that loads.
 *
 * Incremental delivery: each field inside a deferred fragment says which `@defer` (its label, and
 * the path of the object it is deferred at), and each list field written with `@stream` says so,
 * as the incremental executor will collect them (language/collectDeferredFields.ts, with these
 * variables): a field also asked outside every `@defer` is not deferred.
 */
import { GraphQLError, getNamedType, getNullableType, isAbstractType, isListType, isNonNullType, isObjectType } from 'graphql';
import { validate } from '../language/tracingChannels.ts';
import type { DocumentNode, FieldNode, GraphQLObjectType, GraphQLSchema, SelectionSetNode } from 'graphql';
import { analyzeOperation } from '../analysis/analyze.ts';
import type { Analysis, FieldMeasure } from '../analysis/analyze.ts';
import { shouldInclude, typeConditionMatches } from '../language/collectFields.ts';
import { collectDeferredFields } from '../language/collectDeferredFields.ts';
import type { DeferUsage, FieldDetails, SelectionSetUnder } from '../language/collectDeferredFields.ts';
import type { Fragments } from '../language/collectFields.ts';
import { selectOperation } from '../language/selectOperation.ts';
import { COMPILE_AFTER, whyNotCompiled } from './compileFields.ts';
import { STRINGIFY_COMPILE_AFTER } from './compileStringify.ts';
import { OperationPlan } from './plan.ts';
import { STREAM_DIRECTIVE, coerceVariableValues, directiveValues } from '../language/graphqlCompat.ts';
import type { VariableValues } from '../language/graphqlCompat.ts';
import type { FieldPlan, SelectionPlan } from './plan.ts';

/** What the executor does with a field. */
export type FieldKind =
  /** Calls the field's resolver (a call a trace lists). */
  | 'resolver'
  /** Reads the property off its parent and stores it as it is (plainReads.ts PlainRead): no call, no completion. */
  | 'plainRead'
  /** Reads the property (or calls a method of that name: the default resolver), then completes the value the general way. */
  | 'defaultRead'
  /** Writes the parent's type name. */
  | 'typename';

export interface ExplainedField {
  responseName: string;
  fieldName: string;
  /** As written in SDL: `[Book!]!`. */
  type: string;
  /** Whether the value is a list (at any level). */
  list: boolean;
  /** Whether the field's type is Non-Null: an error here nulls the nearest nullable ancestor. */
  nonNull: boolean;
  kind: FieldKind;
  /** How many selections were merged into this response name (1: none). */
  merged: number;
  /** The field's own cost each time it runs. */
  weight: number;
  /** For a list field, how many items the cost analysis assumes; null otherwise. */
  listSize: number | null;
  /** The field and everything beneath it, per parent object: `weight + listSize × (cost of its selection)`. */
  cost: number;
  /** The loader its resolver loads from, when declared (`loaders`). */
  loader?: string;
  /**
   * Incremental delivery: the deferred fragments this field is delivered with (each `@defer`'s
   * label or null, and the path of the object it defers from), present when every selection of
   * it is inside one; absent when it comes in the payload of its parent.
   */
  deferred?: DeferredIn[];
  /** Incremental delivery: the `@stream` on this list field (its `if` not false). */
  stream?: { label: string | null; initialCount: number };
  /** One selection set per runtime object type (several for an interface or union); none for a leaf. */
  selectionSets: ExplainedSelectionSet[];
}

/** One `@defer`: its label (null without one) and where its fragment stands (response names from the root). */
export interface DeferredIn {
  label: string | null;
  path: string;
}

export interface ExplainedSelectionSet {
  /** Response names from the root, without list indices (`books.items`); '' for the root. */
  path: string;
  type: string;
  /** Whether its objects are completed by generated code once it has completed COMPILE_AFTER of them. */
  mode: 'generated' | 'interpreted';
  /** Why that mode. */
  why: string;
  /** Fragments whose fields were collected into it: a named fragment's name, or `... on Type` for an inline one. */
  fragments: string[];
  fields: ExplainedField[];
}

/** One round of loads: the scheduler sends it when every resolver in flight waits on a load. */
export interface BatchRound {
  round: number;
  /** At most one batch per loader in a round (more only past a loader's maxBatchSize). */
  loaders: Array<{ loader: string; paths: string[] }>;
}

export interface Explanation {
  operation: 'query' | 'mutation' | 'subscription';
  name: string | null;
  /** The cost analysis of the whole operation (analysis/analyze.ts). */
  analysis: Analysis;
  /** Whether results are written by a generated JSON writer (compileStringify.ts) when served over HTTP, and why. */
  jsonWriter: { generated: boolean; why: string };
  root: ExplainedSelectionSet;
  /** The rounds of loads, when the loaders of the resolvers were declared; else null. */
  batching: BatchRound[] | null;
}

export interface ExplainOptions {
  /** The operation's variables (its defaults apply to those left out). */
  variables?: Readonly<Record<string, unknown>>;
  /**
   * Which loader each field's resolver loads from, by `Type.field` (`{ 'Book.author': 'authorById' }`):
   * what code alone knows. Given, the explanation includes the rounds of batches.
   */
  loaders?: Readonly<Record<string, string>>;
}

/** The pipeline writes results with generated code only for operations this small (server/pipeline.ts isSmall). */
const SMALL_RESULT_FIELDS = 32;

/**
 * Explains the operation (by name, or the only one) of a document: the validation, operation-choice
 * or variable errors when it cannot run; else its plan, cost and, with `loaders`, its batches.
 */
export function explainOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
  options: ExplainOptions = {},
): Explanation | { errors: ReadonlyArray<GraphQLError> } {
  const validationErrors = validate(schema, document);
  if (validationErrors.length > 0) return { errors: validationErrors };
  const selected = selectOperation(document, operationName);
  if (selected instanceof GraphQLError) return { errors: [selected] };
  const { operation, fragments } = selected;
  const coerced = coerceVariableValues(schema, operation.variableDefinitions ?? [], options.variables ?? {});
  if (coerced.errors !== undefined) return { errors: coerced.errors };
  const variables = coerced.variables;
  const rootType = schema.getRootType(operation.operation);
  if (rootType == null) return { errors: [new GraphQLError(`Schema is not configured to execute ${operation.operation} operation.`)] };

  const measures = new Map<FieldNode, Map<GraphQLObjectType, FieldMeasure>>();
  // A plan of its own: the executor's cached plans are neither made nor changed here.
  const plan = new OperationPlan(schema, document, operation, fragments);
  const explainer = new Explainer(schema, fragments, variables, measures, options.loaders ?? {}, plan.incremental);
  let analysis: Analysis;
  let root: ExplainedSelectionSet;
  try {
    analysis = analyzeOperation({
      schema,
      document,
      operationName: operationName ?? null,
      // As sent: the analysis coerces them itself.
      variableValues: options.variables ?? {},
      onField: (measure) => {
        const node = measure.fieldNodes[0] as FieldNode;
        let byType = measures.get(node);
        if (byType === undefined) measures.set(node, (byType = new Map()));
        byType.set(measure.parentType, measure);
      },
    }).analysis;
    root = explainer.selectionSet(plan.root, '', [{ selectionSet: operation.selectionSet, deferUsage: undefined }], true);
  } catch (error) {
    // Too deep to analyze, or a @skip/@include whose variable is null: what running it would answer.
    if (error instanceof GraphQLError) return { errors: [error] };
    throw error;
  }
  const rounds = options.loaders === undefined ? null : batchRounds(root, 0, []);
  return {
    operation: operation.operation,
    name: operation.name?.value ?? null,
    analysis,
    jsonWriter: jsonWriterOf(analysis, plan.root),
    root,
    batching: rounds,
  };
}

class Explainer {
  /** Where each `@defer` met so far stands: the path of the selection set it was collected in. */
  private readonly deferPaths = new Map<DeferUsage, string>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Fragments,
    private readonly variables: VariableValues,
    private readonly measures: Map<FieldNode, Map<GraphQLObjectType, FieldMeasure>>,
    private readonly loaders: Readonly<Record<string, string>>,
    /** Whether the document uses @defer or @stream (plan.ts OperationPlan.incremental). */
    private readonly defersOrStreams: boolean,
  ) {}

  /** `inputs`: the selection sets merged here, each with the `@defer` it inherits from its field. */
  selectionSet(selections: SelectionPlan, path: string, inputs: ReadonlyArray<SelectionSetUnder>, isRoot: boolean): ExplainedSelectionSet {
    const fields = selections.fieldsForVariables(this.variables);
    // Collected again as the incremental executor collects them: which selection is under which @defer.
    const collected = collectDeferredFields(this.schema, this.fragments, this.variables, selections.type, inputs);
    for (const usage of collected.newDeferUsages) this.deferPaths.set(usage, path);
    let why: string | null;
    if (isRoot) why = 'the root always is';
    // The incremental executor splits each object's fields by @defer before running them: no generated code.
    else if (this.defersOrStreams) why = 'the operation defers or streams, so each object is split by @defer first';
    else if (selections.fields === undefined) why = 'its fields are chosen per request by @skip/@include variables';
    else why = whyNotCompiled(fields);
    const fragments: string[] = [];
    for (const input of inputs) this.fragmentsOf(input.selectionSet, selections.type, fragments);
    return {
      path,
      type: selections.type.name,
      mode: why === null ? 'generated' : 'interpreted',
      why: why ?? `after ${COMPILE_AFTER} objects`,
      fragments,
      fields: fields.map((field) => this.field(field, path, collected.fields.get(field.responseName) ?? [])),
    };
  }

  private field(field: FieldPlan, parentPath: string, details: ReadonlyArray<FieldDetails>): ExplainedField {
    const path = parentPath === '' ? field.responseName : `${parentPath}.${field.responseName}`;
    const measure = this.measures.get(field.fieldNodes[0] as FieldNode)?.get(field.parentType);
    const loader = this.loaders[`${field.parentType.name}.${field.fieldName}`];
    const explained: ExplainedField = {
      responseName: field.responseName,
      fieldName: field.fieldName,
      type: String(field.returnType),
      list: isListType(getNullableType(field.returnType)),
      nonNull: isNonNullType(field.returnType),
      // No plain reads in an incremental delivery: each object's fields are split by @defer first.
      kind: field.isTypename ? 'typename' : field.resolve !== undefined ? 'resolver' : field.plainRead !== null && !this.defersOrStreams ? 'plainRead' : 'defaultRead',
      merged: field.fieldNodes.length,
      weight: measure?.weight ?? 0,
      listSize: measure?.listSize ?? null,
      cost: measure?.cost ?? 0,
      selectionSets: [],
    };
    if (loader !== undefined) explained.loader = loader;
    this.incremental(explained, field, details);
    const named = getNamedType(field.returnType);
    const types = isObjectType(named) ? [named] : isAbstractType(named) ? this.schema.getPossibleTypes(named) : [];
    const inputs = details.flatMap((detail) => (detail.node.selectionSet === undefined ? [] : [{ selectionSet: detail.node.selectionSet, deferUsage: detail.deferUsage }]));
    for (const type of types) explained.selectionSets.push(this.selectionSet(field.selectionsFor(type), path, inputs, false));
    return explained;
  }

  /** Whether the field is delivered later: inside deferred fragments only, or streamed. */
  private incremental(explained: ExplainedField, field: FieldPlan, details: ReadonlyArray<FieldDetails>): void {
    if (details.length > 0 && details.every((detail) => detail.deferUsage !== undefined)) {
      const deferred: DeferredIn[] = [];
      for (const detail of details) {
        const usage = detail.deferUsage as DeferUsage;
        const entry = { label: usage.label ?? null, path: this.deferPaths.get(usage) ?? '' };
        if (!deferred.some((each) => each.label === entry.label && each.path === entry.path)) deferred.push(entry);
      }
      explained.deferred = deferred;
    }
    if (!explained.list) return;
    const stream = directiveValues(STREAM_DIRECTIVE, field.fieldNodes[0] as FieldNode, this.variables);
    if (stream === undefined || stream['if'] === false) return;
    const label = stream['label'];
    explained.stream = { label: typeof label === 'string' ? label : null, initialCount: Number(stream['initialCount']) };
  }

  /** The fragments (named and inline) that CollectFields enters for objects of `type`, in document order. */
  private fragmentsOf(set: SelectionSetNode, type: GraphQLObjectType, found: string[]): void {
    for (const selection of set.selections) {
      if (selection.kind === 'Field' || !shouldInclude(this.variables, selection)) continue;
      if (selection.kind === 'InlineFragment') {
        if (!typeConditionMatches(this.schema, selection, type)) continue;
        const label = selection.typeCondition === undefined ? '... (no type condition)' : `... on ${selection.typeCondition.name.value}`;
        if (!found.includes(label)) found.push(label);
        this.fragmentsOf(selection.selectionSet, type, found);
      } else {
        const name = selection.name.value;
        const fragment = this.fragments[name];
        if (fragment === undefined || found.includes(name) || !typeConditionMatches(this.schema, fragment, type)) continue;
        found.push(name);
        this.fragmentsOf(fragment.selectionSet, type, found);
      }
    }
  }
}

/** The pipeline's choice (server/pipeline.ts isSmall, then compileStringify.ts), said in words. */
function jsonWriterOf(analysis: Analysis, root: SelectionPlan): Explanation['jsonWriter'] {
  if (analysis.nodes > 0) return { generated: false, why: 'the result has lists' };
  if (analysis.fields > SMALL_RESULT_FIELDS) return { generated: false, why: `the result has more than ${SMALL_RESULT_FIELDS} fields` };
  if (root.fields === undefined) return { generated: false, why: 'its fields are chosen by @skip/@include variables' };
  return { generated: true, why: `a small result: after ${STRINGIFY_COMPILE_AFTER} results, except those with errors or a trace` };
}

/**
 * The scheduler sends loads when every resolver in flight waits on one, so a field that loads is
 * answered in the round after the nearest field above it that loads: its round is one more than
 * the number of loading fields above it. Each round holds at most one batch per loader.
 */
function batchRounds(set: ExplainedSelectionSet, above: number, rounds: BatchRound[]): BatchRound[] {
  for (const field of set.fields) {
    const path = set.path === '' ? field.responseName : `${set.path}.${field.responseName}`;
    let below = above;
    if (field.loader !== undefined) {
      below = above + 1;
      let round = rounds.find((each) => each.round === below);
      if (round === undefined) {
        round = { round: below, loaders: [] };
        rounds.push(round);
        rounds.sort((a, b) => a.round - b.round);
      }
      let entry = round.loaders.find((each) => each.loader === field.loader);
      if (entry === undefined) round.loaders.push((entry = { loader: field.loader, paths: [] }));
      if (!entry.paths.includes(path)) entry.paths.push(path);
    }
    for (const child of field.selectionSets) batchRounds(child, below, rounds);
  }
  return rounds;
}

/**
 * The explanation as text for a terminal, in the README's words: the plan as a tree (each field,
 * how it is resolved, its cost), the batches per level, then the speed-ups, which change when the
 * answer comes but never what it is. Takes whatever `explainOperation` answers: for an operation
 * that cannot run, its errors, one a line, each after its `line:column`.
 */
export function formatExplanation(explanation: Explanation | { errors: ReadonlyArray<GraphQLError> }): string {
  if ('errors' in explanation) return formatErrors(explanation.errors);
  const { analysis } = explanation;
  const lines: string[] = [];
  lines.push(`${explanation.operation} ${explanation.name ?? '(anonymous)'}`);
  lines.push(
    `cost ${analysis.cost} · depth ${analysis.depth} · nodes ${analysis.nodes} · fields ${analysis.fields} · aliases ${analysis.aliases} · directives ${analysis.directives}`,
  );
  lines.push('');
  lines.push('plan: each field, how it is resolved, and its cost per parent object');
  formatSet(explanation.root, '', lines);
  lines.push('');
  lines.push(...formatBatches(explanation.batching));
  lines.push('');
  lines.push(...formatSpeedUps(explanation));
  lines.push('');
  lines.push('resolver: its resolver is called · plain read: the value is read off the parent object, no call ·');
  lines.push('default resolver: read off the parent object, then completed (an object, a list, a custom scalar);');
  lines.push('cost of a field = weight + list size × cost of its selection, per parent object.');
  return lines.join('\n');
}

/** Why the operation cannot be explained: each error where it is, then what it says. */
function formatErrors(errors: ReadonlyArray<GraphQLError>): string {
  const lines = errors.map((error) => {
    const where = (error.locations ?? []).map((location) => `${location.line}:${location.column}`).join(', ');
    return where === '' ? error.message : `${where} ${error.message}`;
  });
  return [`the operation cannot run (${errors.length === 1 ? '1 error' : `${errors.length} errors`}):`, ...lines.map((line) => `  ${line}`)].join('\n');
}

/** One batch per loader and level: a level's loads go out once every resolver in flight waits on one. */
function formatBatches(batching: Explanation['batching']): string[] {
  if (batching === null) {
    return [
      'batches: not known without running it (which loader a resolver uses is in its code);',
      '  send the request with extensions: { trace: true } to see its batches.',
    ];
  }
  if (batching.length === 0) return ['batches: none (no field loads through a loader).'];
  return [
    'batches: one per loader and level; a level is sent when the one above has answered:',
    ...batching.map((round) => `  level ${round.round}: ${round.loaders.map((each) => `${each.loader} for ${each.paths.join(', ')}`).join('; ')}`),
  ];
}

/** The engine's speed-ups (generated code, generated JSON writers), apart from the plan: the result is the same without them. */
function formatSpeedUps(explanation: Explanation): string[] {
  const generated: string[] = [];
  const fieldByField = new Map<string, string[]>();
  const visit = (set: ExplainedSelectionSet): void => {
    const where = set.path === '' ? set.type : `${set.type} at ${set.path}`;
    if (set.mode === 'generated') generated.push(where);
    else fieldByField.set(set.why, [...(fieldByField.get(set.why) ?? []), where]);
    for (const field of set.fields) for (const child of field.selectionSets) visit(child);
  };
  visit(explanation.root);
  const lines = ['speed-ups (the result is the same without them):'];
  if (generated.length > 0) lines.push(`  generated code after ${COMPILE_AFTER} objects: ${generated.join(', ')}`);
  for (const [why, sets] of fieldByField) lines.push(`  field by field: ${sets.join(', ')} (${why})`);
  const { generated: writer, why } = explanation.jsonWriter;
  lines.push(`  response text by ${writer ? 'generated code' : 'JSON.stringify'} (${why})`);
  return lines;
}

const KIND_TEXT: Record<FieldKind, string> = {
  resolver: 'resolver',
  plainRead: 'plain read',
  defaultRead: 'default resolver',
  typename: 'type name',
};

function formatSet(set: ExplainedSelectionSet, prefix: string, lines: string[], parentDeferred = ''): void {
  lines.push(`${prefix}${set.type}${set.fragments.length === 0 ? '' : ` · from fragments: ${set.fragments.join(', ')}`}`);
  set.fields.forEach((field, index) => {
    const last = index === set.fields.length - 1;
    const name = field.responseName === field.fieldName ? field.responseName : `${field.responseName} (${field.fieldName})`;
    const parts = [`${name}: ${field.type}`, field.loader === undefined ? KIND_TEXT[field.kind] : `${KIND_TEXT[field.kind]}, batched by ${field.loader}`];
    // Said where it starts: the fields beneath a deferred field come with it.
    const deferred = deferredText(field.deferred);
    if (deferred !== '' && deferred !== parentDeferred) parts.push(deferred);
    if (field.stream !== undefined) parts.push(streamText(field.stream));
    if (field.merged > 1) parts.push(`merged from ${field.merged} selections`);
    if (field.listSize !== null) parts.push(`list of ${field.listSize}`);
    parts.push(`weight ${field.weight}`, `cost ${field.cost}`);
    lines.push(`${prefix}${last ? '└─ ' : '├─ '}${parts.join(' · ')}`);
    const childPrefix = prefix + (last ? '   ' : '│  ');
    for (const child of field.selectionSets) formatSet(child, childPrefix, lines, deferred);
  });
}

/** `deferred "who" at books.items`, or `deferred (no label) at books.items`; '' when not deferred. */
function deferredText(deferred: ReadonlyArray<DeferredIn> | undefined): string {
  if (deferred === undefined) return '';
  const each = deferred.map((entry) => `${entry.label === null ? '(no label)' : JSON.stringify(entry.label)} at ${entry.path === '' ? 'the root' : entry.path}`);
  return `deferred ${each.join(' and ')}`;
}

/** `streamed after 1 item`, with its label when it has one. */
function streamText(stream: NonNullable<ExplainedField['stream']>): string {
  const after = `streamed after ${stream.initialCount} ${stream.initialCount === 1 ? 'item' : 'items'}`;
  return stream.label === null ? after : `${after} ${JSON.stringify(stream.label)}`;
}
