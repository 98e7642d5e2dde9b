/**
 * Execution traces: what one execution did and when, recorded only for an execution that asks
 * (`execute({ ..., trace: true })`, or a request's `extensions: { trace: true }`), and returned as
 * `extensions.trace`.
 *
 * Why: a learner reading how a request runs wants to see it run. A trace is the waterfall of the
 * resolver calls the executor made (in call order, with their times from the execution's start),
 * the batches the scheduler sent (which loader, which keys, which calls waited on them), and what
 * the planner decided for each selection set. Nothing in it is guessed: the waiters of a batch are
 * the tasks the scheduler itself counted as awaiting its loads (batching/scheduler.ts).
 *
 * Why it costs nothing when off: the executor holds a tracer or null, and asks `!== null` once per
 * resolver call (execute.ts resolveField) and once per awaited value; the scheduler once per
 * dispatch. Everything below runs only for a traced execution.
 *
 * What is not listed as a resolver call: fields without a resolver, which the executor answers by
 * reading a property (or calling a method of that name: graphql-js's default resolver), and
 * `__typename`. The plan part says which fields those were.
 */
import type { GraphQLObjectType, GraphQLOutputType } from 'graphql';
import type { DispatchObserver, LoadPromise, Task } from '../batching/scheduler.ts';
import { inspect } from '../jsutils/inspect.ts';
import { isPromiseLike } from '../jsutils/isPromiseLike.ts';
import { pathToArray } from './path.ts';
import type { ResponsePath } from './path.ts';
import type { FieldPlan, OperationPlan, SelectionPlan } from './plan.ts';

/** One call of a resolver. Times are whole nanoseconds from the execution's start. */
export interface ResolverTrace {
  /** Response names and list indices from the root, joined by dots: `books.items.0.author`. */
  path: string;
  parentType: string;
  fieldName: string;
  /** The field's type as written in SDL: `Author!`, `[Book!]!`. */
  returnType: string;
  startNs: number;
  /** Until the resolver returned, or, when it returned a promise, until that promise settled. */
  durationNs: number;
  /** Whether it returned a promise (or any thenable). */
  promise: boolean;
  /** Indexes into `batches` of the batches whose loads this call awaited. */
  batches: number[];
  /**
   * Incremental delivery only (`@defer`/`@stream`): the index into `payloads` of the payload that
   * delivered what this call resolved (0: the first), or null when it was never delivered (its
   * part failed, was cancelled, or the delivery ended first).
   */
  payload?: number | null;
  /** Incremental delivery only: the ids (`parts`) of the deferred fragments or the stream this call ran for; [] for the first payload's fields. */
  parts?: string[];
}

/** One call of a BatchLoader's batch function, sent by the execution's scheduler. */
export interface BatchTrace {
  /** The loader's `name` option (`unnamed` without one). */
  loader: string;
  /** The keys, as given to the batch function (the first MAX_TRACED_KEYS); keys that are not strings, numbers or booleans as text. */
  keys: unknown[];
  /** How many keys were left out of `keys`; present only when some were. */
  keysTruncated?: number;
  startNs: number;
  /** Until the batch function returned, or, when it returned a promise, until that promise settled. */
  durationNs: number;
  /** Indexes into `resolvers` of the calls that awaited loads of this batch. */
  waiters: number[];
}

/** What the planner decided for one selection set on one object type. */
export interface SelectionSetTrace {
  /** Response names from the root, without list indices (`books.items`); '' for the root. */
  path: string;
  type: string;
  /**
   * `generated`: its objects are completed by code generated for it (compileFields.ts), which
   * the executor writes after a selection plan has completed 32 objects, when it has plain reads
   * and is not chosen by variables. `interpreted`: by the plan interpreter.
   */
  mode: 'generated' | 'interpreted';
  /** Every response name, in result order. */
  fields: string[];
  /** Fields whose resolver is called: the calls listed in `resolvers`. */
  resolvers: string[];
  /** Fields read straight off the parent and stored as they are, without a call (plainReads.ts PlainRead). */
  plainReads: string[];
  /** Response names made of several selections (fragments, or the same field written twice) merged into one field. */
  merged: string[];
  /** Fields the caller may not use: they fail with their error and their resolver is never called. */
  denied: string[];
}

/**
 * The plan's decisions for this operation. Selection plans are made lazily, as executions reach
 * them, so these are the ones made so far (for an abstract field, one per runtime type met).
 * Fields in none of `resolvers`, `plainReads` and `denied` are read off their parent by the default
 * resolver and completed the general way (objects, lists of objects, custom scalars, fields with
 * arguments), or are `__typename`.
 */
export interface PlanTrace {
  operation: 'query' | 'mutation' | 'subscription';
  name: string | null;
  /**
   * Whether small results of this operation are written by a generated JSON writer
   * (compileStringify.ts) when served over HTTP. A traced result itself is always written by
   * JSON.stringify.
   */
  jsonWriter: boolean;
  selectionSets: SelectionSetTrace[];
}

/** Incremental delivery: one deferred fragment at one position, or one streamed list. */
export interface PartTrace {
  /** Its id in the current format's `pending` (the 2022 format has no ids: numbered the same way). */
  id: string;
  kind: 'defer' | 'stream';
  /** The `label` argument of its `@defer` or `@stream`, or null. */
  label: string | null;
  /** Where its data goes (a stream: the list), as `ResolverTrace.path` writes it; '' for the root. */
  path: string;
  /** The payload that announced it (`pending`). */
  announcedIn: number;
  /** The payload that completed it (`completed`), or null when the delivery ended first. */
  completedIn: number | null;
  /** Whether it failed: an error rose to its top (its data was never sent). */
  failed: boolean;
}

/** Incremental delivery: one payload, as the client received it (0: the first). */
export interface PayloadTrace {
  /** When it was made, as the client asked for it: nanoseconds from the execution's start. */
  atNs: number;
  hasNext: boolean;
  /** Ids of the parts it announced (`pending`). */
  pending: string[];
  /** Paths of the data it carried: the first payload's root (''), each deferred fragment's data, each streamed item. */
  delivered: string[];
  /** Ids of the parts it completed (`completed`), failed ones too. */
  completed: string[];
}

/** What an incremental delivery adds to its trace (made by execution/incremental/deliveryReport.ts). */
export interface IncrementalTraceParts {
  readonly parts: PartTrace[];
  readonly payloads: PayloadTrace[];
  /** For the execution a resolver call ran in: the payload that delivered its value, and the parts it ran for. */
  readonly attribution: (owner: object) => { payload: number | null; parts: string[] };
}

/** `extensions.trace`. */
export interface ExecutionTrace {
  version: 1;
  /** Wall-clock time of the execution's start, ISO 8601. */
  startedAt: string;
  /** The whole execution, in nanoseconds. */
  durationNs: number;
  resolvers: ResolverTrace[];
  batches: BatchTrace[];
  plan: PlanTrace;
  /**
   * Incremental delivery only (an operation whose `@defer`/`@stream` applied, in a trace on its
   * last payload): the deferred fragments and streams, and the payloads in order.
   */
  parts?: PartTrace[];
  payloads?: PayloadTrace[];
}

/** At most this many keys of one batch are listed. */
export const MAX_TRACED_KEYS = 100;

/** What the tracer reads of the execution when it is done. */
export interface TracedExecution {
  /** The field list of a selection plan for the execution's variables. */
  fieldsOf(selections: SelectionPlan): ReadonlyArray<FieldPlan>;
  /** Whether plain reads took their shortcut (no custom default resolver, and not an incremental delivery). */
  readonly plainReads: boolean;
  /** A custom default resolver: then every field but `__typename` is a resolver call. */
  readonly fieldResolver: unknown;
}

/** The recorder of one traced execution; the executor and its scheduler report to it. */
export class ExecutionTracer implements DispatchObserver {
  /** performance.now() at the start: a double of milliseconds, cheaper to read than hrtime.bigint() (no BigInt made). */
  private readonly origin = performance.now();
  private readonly startedAt = new Date().toISOString();
  private readonly resolvers: ResolverTrace[] = [];
  private readonly batches: BatchTrace[] = [];
  /** The scheduler's task of each resolver call: how a batch's waiters become resolver indexes. */
  private readonly tasks = new Map<Task, number>();
  /** Promises returned by resolvers, not settled yet, and the calls that returned them (one promise may be returned by several calls: a cached load). */
  private readonly pending = new Map<PromiseLike<unknown>, number[]>();
  /**
   * Once the trace is handed out, later events no longer change it: a batch nobody awaited
   * settling, or work that still starts after the result (graphql 17 answers as soon as a null
   * has reached the root, while a batch queued before it is dispatched all the same).
   */
  private finished = false;
  /**
   * Incremental delivery only (trackOwners): the execution each resolver call ran in, by index,
   * which says in which payload its value went. Null, and never touched, for a single result.
   */
  private owners: object[] | null = null;

  /** Incremental delivery: from now on, each call's execution is noted (see `owners`). */
  trackOwners(): void {
    this.owners = [];
  }

  /** Whole nanoseconds since the start. */
  private now(): number {
    return Math.round((performance.now() - this.origin) * 1e6);
  }

  /** A resolver is about to be called (its arguments and info are ready): returns its index. */
  resolverCalled(field: FieldPlan, path: ResponsePath, task: Task | undefined, owner: object): number {
    if (this.finished) return -1;
    if (this.owners !== null) this.owners.push(owner);
    const index = this.resolvers.length;
    const entry: ResolverTrace = {
      path: pathToArray(path).join('.'),
      parentType: field.parentType.name,
      fieldName: field.fieldName,
      returnType: typeName(field.returnType),
      startNs: 0,
      durationNs: -1,
      promise: false,
      batches: [],
    };
    this.resolvers.push(entry);
    if (task !== undefined) this.tasks.set(task, index);
    // Last, so that building the entry is not counted as the resolver's time.
    entry.startNs = this.now();
    return index;
  }

  /** The resolver returned `value` (undefined when it threw). */
  resolverReturned(index: number, value: unknown): void {
    if (this.finished) return;
    const entry = this.resolvers[index] as ResolverTrace;
    if (!isPromiseLike(value)) {
      entry.durationNs = this.now() - entry.startNs;
      return;
    }
    entry.promise = true;
    const calls = this.pending.get(value);
    if (calls === undefined) this.pending.set(value, [index]);
    else calls.push(index);
  }

  /** The executor's continuation for `promise` runs: if a resolver returned it, that call is over. */
  settled(promise: PromiseLike<unknown>): void {
    const calls = this.pending.get(promise);
    if (calls === undefined) return;
    const index = calls.shift() as number;
    if (calls.length === 0) this.pending.delete(promise);
    if (this.finished) return;
    const entry = this.resolvers[index] as ResolverTrace;
    entry.durationNs = this.now() - entry.startNs;
  }

  batchStarted(loader: string, keys: ReadonlyArray<unknown>): number {
    if (this.finished) return -1;
    const index = this.batches.length;
    const listed = keys.length > MAX_TRACED_KEYS ? keys.slice(0, MAX_TRACED_KEYS) : keys;
    const entry: BatchTrace =
      keys.length > MAX_TRACED_KEYS
        ? { loader, keys: listed.map(traceKey), keysTruncated: keys.length - MAX_TRACED_KEYS, startNs: 0, durationNs: -1, waiters: [] }
        : { loader, keys: listed.map(traceKey), startNs: 0, durationNs: -1, waiters: [] };
    this.batches.push(entry);
    entry.startNs = this.now();
    return index;
  }

  /**
   * The batch function's answer came (or it threw): its loads are about to settle. Their waiters
   * are read now, before settling clears them: every task the scheduler saw awaiting them.
   */
  batchSettled(index: number, loads: ReadonlyArray<LoadPromise<unknown>>): void {
    if (this.finished) return;
    const batch = this.batches[index] as BatchTrace;
    batch.durationNs = this.now() - batch.startNs;
    for (const load of loads) {
      for (const task of load.awaitingTasks()) {
        // Tasks that are not resolver calls (the execution's root) are not listed.
        const caller = this.tasks.get(task);
        if (caller === undefined || batch.waiters.includes(caller)) continue;
        batch.waiters.push(caller);
        (this.resolvers[caller] as ResolverTrace).batches.push(index);
      }
    }
    batch.waiters.sort((a, b) => a - b);
  }

  /** The trace, once the execution's result is ready (an incremental delivery's: its last payload, with `incremental`). */
  finish(plan: OperationPlan, execution: TracedExecution, incremental?: IncrementalTraceParts): ExecutionTrace {
    const durationNs = this.now();
    this.finished = true;
    // Only a promise the executor stopped waiting for (its `then` threw) or a batch nobody
    // awaited can still be open: shown as lasting until the end.
    for (const entry of this.resolvers) if (entry.durationNs < 0) entry.durationNs = durationNs - entry.startNs;
    for (const entry of this.batches) if (entry.durationNs < 0) entry.durationNs = durationNs - entry.startNs;
    for (const entry of this.resolvers) entry.batches.sort((a, b) => a - b);
    const trace: ExecutionTrace = {
      version: 1,
      startedAt: this.startedAt,
      durationNs,
      resolvers: this.resolvers,
      batches: this.batches,
      plan: planTrace(plan, execution),
    };
    if (incremental !== undefined) this.attribute(trace, incremental);
    return trace;
  }

  /** Each call's payload and parts, from the execution it ran in; then the parts and payloads themselves. */
  private attribute(trace: ExecutionTrace, incremental: IncrementalTraceParts): void {
    const owners = this.owners ?? [];
    for (let i = 0; i < this.resolvers.length; i++) {
      const { payload, parts } = incremental.attribution(owners[i] as object);
      const entry = this.resolvers[i] as ResolverTrace;
      entry.payload = payload;
      entry.parts = parts;
    }
    trace.parts = incremental.parts;
    trace.payloads = incremental.payloads;
  }

  /** Nanoseconds since the start, for the payloads of an incremental delivery. */
  elapsedNs(): number {
    return this.now();
  }
}

/** A key as JSON can carry it: strings, finite numbers and booleans as they are, anything else as text. */
function traceKey(key: unknown): unknown {
  if (typeof key === 'string' || typeof key === 'boolean' || (typeof key === 'number' && Number.isFinite(key))) return key;
  return inspect(key);
}

/** The selection plans made so far for this operation, from the root down. */
function planTrace(plan: OperationPlan, execution: TracedExecution): PlanTrace {
  const selectionSets: SelectionSetTrace[] = [];
  visitSelections(plan.root, '', execution, selectionSets);
  return {
    operation: plan.operation.operation,
    name: plan.operation.name?.value ?? null,
    jsonWriter: typeof plan.root.writer === 'function',
    selectionSets,
  };
}

// A function of the module, not a closure: tsx names every closure it makes, at a price per call.
function visitSelections(selections: SelectionPlan, path: string, execution: TracedExecution, into: SelectionSetTrace[]): void {
  let fields: ReadonlyArray<FieldPlan>;
  try {
    fields = execution.fieldsOf(selections);
  } catch {
    // Its @skip/@include could not be decided for these variables: the execution failed there.
    return;
  }
  // Generated code runs only where plain reads do (an incremental delivery splits each object's fields first).
  const mode = execution.plainReads && typeof selections.reader.compiled === 'function' ? 'generated' : 'interpreted';
  into.push(describeSelectionSet(path, selections.type, fields, mode, execution));
  for (const field of fields) {
    for (const child of field.plannedSelections()) {
      visitSelections(child, path === '' ? field.responseName : `${path}.${field.responseName}`, execution, into);
    }
  }
}

/** Type names as SDL writes them, made once per type (graphql-js builds `[Book!]!` anew on every call). */
const typeNames = new WeakMap<GraphQLOutputType, string>();

function typeName(type: GraphQLOutputType): string {
  let name = typeNames.get(type);
  if (name === undefined) {
    name = String(type);
    typeNames.set(type, name);
  }
  return name;
}

/**
 * One selection set's fields, by what the executor does with them. With a custom default
 * resolver every field but `__typename` is a resolver call; without plain reads (that resolver,
 * or an incremental delivery) no field is listed as a plain read.
 */
function describeSelectionSet(
  path: string,
  type: GraphQLObjectType,
  fields: ReadonlyArray<FieldPlan>,
  mode: SelectionSetTrace['mode'],
  execution: TracedExecution,
): SelectionSetTrace {
  const set: SelectionSetTrace = { path, type: type.name, mode, fields: [], resolvers: [], plainReads: [], merged: [], denied: [] };
  for (const field of fields) {
    const name = field.responseName;
    set.fields.push(name);
    if (field.fieldNodes.length > 1) set.merged.push(name);
    if (field.denial !== null) set.denied.push(name);
    else if (field.isTypename) continue;
    else if (field.resolve !== undefined || execution.fieldResolver !== undefined) set.resolvers.push(name);
    else if (execution.plainReads && field.plainRead !== null) set.plainReads.push(name);
  }
  return set;
}
