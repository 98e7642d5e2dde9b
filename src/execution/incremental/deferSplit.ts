/**
 * Which fields of an object run now and which are deferred (the Incremental Delivery RFC's
 * "BuildExecutionPlan"), for one request.
 *
 * Fields are collected with their defer usages (language/collectDeferredFields.ts). An execution
 * runs on behalf of a set of defer usages (none: the initial result; a deferred fragment's
 * execution group: the fragments it serves). A field runs now when the set of defer usages it was
 * found under equals that set; a field found under no `@defer` at all belongs to every set, so it
 * runs with the earliest. The others are grouped by their set: each group becomes one execution
 * group (workQueue.ts) at this position.
 *
 * A field found inside a `@defer` nested in another `@defer` it was also found in belongs to the
 * outer one only (it is needed there first). That is the "filtered" set below.
 *
 * The 2022 format ("branching") splits by field node instead: a field asked both inline and by a
 * deferred fragment runs twice, once with each, since each payload there must stand alone.
 */
import type { FieldNode } from 'graphql';
import { collectDeferredFields } from '../../language/collectDeferredFields.ts';
import type { DeferUsage, FieldDetails, SelectionSetUnder } from '../../language/collectDeferredFields.ts';
import { FieldPlan } from '../plan.ts';
import type { OperationPlan, SelectionPlan } from '../plan.ts';
import type { Execution } from '../execution.ts';

/** A set of defer usages, with a key that names its members regardless of order. */
export interface DeferUsageSet {
  readonly key: string;
  readonly usages: ReadonlyArray<DeferUsage>;
}

/** The fields of one object to run now, and those to run later, grouped by the defer usages they serve. */
export interface Split {
  readonly now: ReadonlyArray<FieldPlan>;
  readonly later: ReadonlyArray<{ readonly set: DeferUsageSet; readonly fields: ReadonlyArray<FieldPlan> }>;
}

/** One selection plan collected with `@defer` for one request. */
export interface Collection {
  /** Response name -> its field plan and the field nodes found, with their defer usages. */
  readonly fields: ReadonlyMap<string, { readonly field: FieldPlan; readonly details: ReadonlyArray<FieldDetails> }>;
  readonly newDeferUsages: ReadonlyArray<DeferUsage>;
  /** Splits made so far, by the key of the executing set. */
  readonly splits: Map<string, Split>;
}

export const NO_DEFER: DeferUsageSet = { key: '', usages: [] };

/** What the collections of one request share: ids for defer usages, details per field plan, derived field plans. */
export class RequestCollections {
  private readonly collections = new Map<SelectionPlan, Collection>();
  /** The field nodes (with defer usages) of each field plan, as the collection that found it saw them. */
  private readonly details = new Map<FieldPlan, ReadonlyArray<FieldDetails>>();
  private readonly ids = new Map<DeferUsage, number>();
  /** Field plans made for part of a field's nodes (branching), or for its streamed items. */
  private readonly derived = new Map<FieldPlan, Map<string, FieldPlan>>();
  private readonly plan: OperationPlan;

  constructor(plan: OperationPlan) {
    this.plan = plan;
  }

  /** The collection of an object's selection plan: the root's (no field), or a field's. */
  collect(exec: Execution, field: FieldPlan | undefined, selections: SelectionPlan): Collection {
    let collection = this.collections.get(selections);
    if (collection !== undefined) return collection;
    const inputs: SelectionSetUnder[] = [];
    if (field === undefined) {
      for (const selectionSet of selections.selectionSets) inputs.push({ selectionSet, deferUsage: undefined });
    } else {
      for (const details of this.detailsOf(field)) {
        if (details.node.selectionSet !== undefined) inputs.push({ selectionSet: details.node.selectionSet, deferUsage: details.deferUsage });
      }
    }
    const collected = collectDeferredFields(exec.schema, exec.fragments, exec.variableValues, selections.type, inputs);
    const byName = new Map<string, FieldPlan>();
    for (const plan of exec.fieldsOf(selections)) byName.set(plan.responseName, plan);
    const fields = new Map<string, { field: FieldPlan; details: FieldDetails[] }>();
    for (const [responseName, details] of collected.fields) {
      const plan = byName.get(responseName);
      if (plan === undefined) continue;
      fields.set(responseName, { field: plan, details });
      this.details.set(plan, details);
    }
    for (const usage of collected.newDeferUsages) this.ids.set(usage, this.ids.size);
    collection = { fields, newDeferUsages: collected.newDeferUsages, splits: new Map() };
    this.collections.set(selections, collection);
    return collection;
  }

  /** A field plan's nodes with their defer usages (none known: its own nodes, under no `@defer`). */
  detailsOf(field: FieldPlan): ReadonlyArray<FieldDetails> {
    return this.details.get(field) ?? field.fieldNodes.map((node) => ({ node, deferUsage: undefined }));
  }

  /** The set of these usages, keyed by their ids. */
  setOf(usages: ReadonlyArray<DeferUsage>): DeferUsageSet {
    if (usages.length === 0) return NO_DEFER;
    const key = usages.map((usage) => this.ids.get(usage) ?? -1).sort((a, b) => a - b).join(',');
    return { key, usages };
  }

  /** The split of a collection for an execution serving `executing` (the current format). */
  split(collection: Collection, executing: DeferUsageSet): Split {
    let split = collection.splits.get(executing.key);
    if (split !== undefined) return split;
    const now: FieldPlan[] = [];
    const later = new Map<string, { set: DeferUsageSet; fields: FieldPlan[] }>();
    for (const { field, details } of collection.fields.values()) {
      const set = this.setOf(filteredUsages(details));
      if (set.key === executing.key) now.push(field);
      else addTo(later, set, field);
    }
    split = { now, later: [...later.values()] };
    collection.splits.set(executing.key, split);
    return split;
  }

  /** The split of a collection for an execution serving `executing`, field node by field node (the 2022 format). */
  branchingSplit(collection: Collection, executing: DeferUsageSet): Split {
    let split = collection.splits.get(executing.key);
    if (split !== undefined) return split;
    const now = new Map<string, FieldDetails[]>();
    const later = new Map<string, { set: DeferUsageSet; byName: Map<string, FieldDetails[]> }>();
    for (const [responseName, { details }] of collection.fields) {
      for (const detail of details) {
        const set = this.setOf(detail.deferUsage === undefined ? [] : [detail.deferUsage]);
        let target = now;
        if (set.key !== executing.key) {
          let group = later.get(set.key);
          if (group === undefined) later.set(set.key, (group = { set, byName: new Map() }));
          target = group.byName;
        }
        const list = target.get(responseName);
        if (list !== undefined) list.push(detail);
        else target.set(responseName, [detail]);
      }
    }
    split = {
      now: this.fieldsFor(collection, now),
      later: [...later.values()].map(({ set, byName }) => ({ set, fields: this.fieldsFor(collection, byName) })),
    };
    collection.splits.set(executing.key, split);
    return split;
  }

  /** Field plans for these nodes of each response name: the collected plan when all its nodes are here, else one made for these. */
  private fieldsFor(collection: Collection, byName: Map<string, FieldDetails[]>): FieldPlan[] {
    const fields: FieldPlan[] = [];
    for (const [responseName, details] of byName) {
      const whole = collection.fields.get(responseName) as { field: FieldPlan; details: ReadonlyArray<FieldDetails> };
      if (details.length === whole.details.length) {
        fields.push(whole.field);
        continue;
      }
      const nodes = details.map((detail) => detail.node);
      const part = this.derive(whole.field, nodes.map(nodeKey).join('|'), nodes);
      this.details.set(part, details);
      fields.push(part);
    }
    return fields;
  }

  /** A field's streamed items: the same nodes, under no `@defer` (a streamed item belongs to its stream alone). */
  streamedItems(field: FieldPlan): FieldPlan {
    const items = this.derive(field, 'stream', field.fieldNodes);
    this.details.set(items, field.fieldNodes.map((node) => ({ node, deferUsage: undefined })));
    return items;
  }

  private derive(field: FieldPlan, key: string, nodes: ReadonlyArray<FieldNode>): FieldPlan {
    let byKey = this.derived.get(field);
    if (byKey === undefined) this.derived.set(field, (byKey = new Map()));
    let derived = byKey.get(key);
    if (derived === undefined) {
      derived = new FieldPlan(this.plan, field.parentType, field.responseName, nodes, field.definition);
      byKey.set(key, derived);
    }
    return derived;
  }
}

/** The defer usages a field was found under, without those nested in another of them; none when found under no `@defer`. */
function filteredUsages(details: ReadonlyArray<FieldDetails>): DeferUsage[] {
  const usages = new Set<DeferUsage>();
  for (const detail of details) {
    if (detail.deferUsage === undefined) return [];
    usages.add(detail.deferUsage);
  }
  for (const usage of usages) {
    for (let parent = usage.parent; parent !== undefined; parent = parent.parent) {
      if (usages.has(parent)) {
        usages.delete(usage);
        break;
      }
    }
  }
  return [...usages];
}

function addTo(groups: Map<string, { set: DeferUsageSet; fields: FieldPlan[] }>, set: DeferUsageSet, field: FieldPlan): void {
  const group = groups.get(set.key);
  if (group !== undefined) group.fields.push(field);
  else groups.set(set.key, { set, fields: [field] });
}

/** Field nodes numbered as first met, to name a subset of a field's nodes. */
const nodeIds = new WeakMap<FieldNode, number>();
let nextNodeId = 0;

function nodeKey(node: FieldNode): number {
  let id = nodeIds.get(node);
  if (id === undefined) nodeIds.set(node, (id = nextNodeId++));
  return id;
}
