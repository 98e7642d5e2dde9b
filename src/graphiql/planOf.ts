/**
 * The Trace panel's plan as data (drawn by planTree.jsx): the trace's selection sets as a tree of
 * the operation, each field with how the executor resolved it, its resolver calls and the batches
 * those calls waited on, with the level of each batch.
 *
 * Why joined here: the trace lists selection sets by path, fields by the executor's categories
 * (`resolvers`, `plainReads`, `denied`), and calls and batches apart; a learner should not have to
 * join them by hand. Nothing is guessed: a field's batches are the ones its own calls waited on
 * (`resolver.batches`, which the scheduler recorded).
 *
 * A level is a round trip: a field whose calls waited on batches is one level below the nearest
 * such field above it, as the scheduler sends a level's loads only once the level above answered
 * (the same rule as execution/explain.ts batchRounds, read here off what really happened).
 */
import type { BatchTrace, ExecutionTrace, SelectionSetTrace } from '../execution/trace.ts';
import { fieldPathOf, keyCount } from './words.ts';

/** What the executor did with a field, in the README's words. */
export type HowResolved = 'resolver' | 'plain read' | 'default resolver' | 'type name' | 'not allowed (its resolver never ran)';

/** The batches one field (or one level) waited on, from one loader. */
export interface Load {
  loader: string;
  batches: number;
  keys: number;
  /** The batches' time, added up. */
  ns: number;
}

export interface PlannedField {
  /** The response name. */
  name: string;
  /** Response names from the root, without list indices. */
  path: string;
  how: HowResolved;
  /** As SDL writes it, known from its resolver calls; null for a field that made none. */
  type: string | null;
  calls: number;
  /** Made of several selections (fragments, or the same field written twice). */
  merged: boolean;
  loads: Load[];
  /** The level of its batches (0 above every batch). */
  level: number;
  /** One per object type met (several for an interface or union). */
  children: PlannedSet[];
}

export interface PlannedSet {
  type: string;
  fields: PlannedField[];
}

export interface PlannedOperation {
  root: PlannedSet[];
  levels: Array<{ level: number; loads: Load[] }>;
}

/** Each field's resolver calls: how many, the type they returned, the batches they waited on. */
interface Calls {
  calls: number;
  returnType: string;
  batches: Set<number>;
}

/** The trace's selection sets as a tree, with each field's calls and batches joined in. */
export function planOf(trace: ExecutionTrace): PlannedOperation {
  const setsAt = new Map<string, SelectionSetTrace[]>();
  for (const set of trace.plan.selectionSets) setsAt.set(set.path, [...(setsAt.get(set.path) ?? []), set]);
  const callsAt = new Map<string, Calls>();
  for (const call of trace.resolvers) {
    const key = fieldPathOf(call.path);
    const entry = callsAt.get(key) ?? { calls: 0, returnType: call.returnType, batches: new Set<number>() };
    entry.calls += 1;
    for (const at of call.batches) if (trace.batches[at] !== undefined) entry.batches.add(at);
    callsAt.set(key, entry);
  }
  const levels = new Map<number, Set<number>>();
  const setsUnder = (path: string, levelAbove: number): PlannedSet[] =>
    (setsAt.get(path) ?? []).map((set) => ({
      type: set.type,
      fields: set.fields.map((name) => {
        const fieldPath = path === '' ? name : `${path}.${name}`;
        const called = callsAt.get(fieldPath);
        const waitedOn = [...(called?.batches ?? [])];
        const level = waitedOn.length > 0 ? levelAbove + 1 : levelAbove;
        if (waitedOn.length > 0) levels.set(level, new Set([...(levels.get(level) ?? []), ...waitedOn]));
        return {
          name,
          path: fieldPath,
          how: howResolved(set, name),
          type: called?.returnType ?? null,
          calls: called?.calls ?? 0,
          merged: set.merged.includes(name),
          loads: loadsOf(waitedOn, trace.batches),
          level,
          children: setsUnder(fieldPath, level),
        };
      }),
    }));
  const root = setsUnder('', 0);
  return {
    root,
    levels: [...levels].sort(([a], [b]) => a - b).map(([level, indexes]) => ({ level, loads: loadsOf([...indexes], trace.batches) })),
  };
}

function howResolved(set: SelectionSetTrace, name: string): HowResolved {
  if (set.denied.includes(name)) return 'not allowed (its resolver never ran)';
  if (set.resolvers.includes(name)) return 'resolver';
  if (set.plainReads.includes(name)) return 'plain read';
  if (name === '__typename') return 'type name';
  return 'default resolver';
}

/** The batches, one entry per loader, in the order they were sent. */
function loadsOf(indexes: ReadonlyArray<number>, batches: ReadonlyArray<BatchTrace>): Load[] {
  const byLoader = new Map<string, Load>();
  for (const at of [...indexes].sort((a, b) => a - b)) {
    const batch = batches[at] as BatchTrace;
    const entry = byLoader.get(batch.loader) ?? { loader: batch.loader, batches: 0, keys: 0, ns: 0 };
    entry.batches += 1;
    entry.keys += keyCount(batch);
    entry.ns += batch.durationNs;
    byLoader.set(batch.loader, entry);
  }
  return [...byLoader.values()];
}
