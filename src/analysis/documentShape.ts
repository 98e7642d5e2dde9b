/**
 * The shape limits a document must satisfy before graphql-js validates it: what validation
 * costs, bounded in one linear walk of the document as written.
 *
 * Validation is mostly linear in the document, with one exception: the rule that fields merged
 * under one response name can be merged (OverlappingFieldsCanBeMerged) compares every pair of
 * fields that share a response name in a selection set, and each comparison walks both
 * sub-selections. `{ me { id } me { id } … }` repeated a thousand times is 12 KB and four thousand
 * tokens, well within the token limit, yet half a million comparisons: hundreds of milliseconds
 * of event loop for one request. So, before validation:
 *
 *  - `breadth`: no selection set lists more than this many selections;
 *  - `directivesPerNode`: no field or fragment carries more than this many directives;
 *  - `fieldMerges`: the pairs the rule compares, summed over every selection set, stay below
 *    this: pairs of fields that share a response name within the set (its inline fragments and
 *    the fragments it spreads included, as the rule collects them), and pairs of fragments spread
 *    in it (the rule compares every two). It is the rule's work, counted before it runs.
 *
 * Each fragment's response names are counted once and reused wherever it is spread, so the walk
 * is linear in the document as written, whatever its fragments would expand to.
 */
import { GraphQLError, Kind } from 'graphql';
import type { DocumentNode, FragmentDefinitionNode, SelectionSetNode } from 'graphql';
import { ErrorCode } from '../errors/codes.ts';

export interface ShapeLimits {
  breadth: number | false;
  directivesPerNode: number | false;
  fieldMerges: number | false;
}

/** Response name -> how many fields a selection set merges under it. */
type NameCounts = Map<string, number>;

/** A document's shape, measured: the errors of the shape limits it exceeds (at most one of each kind; none when it may be validated), and the pairs the overlapping-fields rule will compare. */
export interface DocumentShape {
  readonly errors: GraphQLError[];
  /** The overlapping-fields rule's work (see the module comment); past 2^53 no longer exact. */
  readonly fieldMerges: number;
}

export function measureDocumentShape(document: DocumentNode, limits: ShapeLimits): DocumentShape {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const walk = new ShapeWalk(fragments, limits);
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION || definition.kind === Kind.FRAGMENT_DEFINITION) {
      walk.directives(definition.directives?.length ?? 0);
      walk.selectionSet(definition.selectionSet);
    }
  }
  return { errors: walk.errors(), fieldMerges: walk.fieldMerges };
}

class ShapeWalk {
  private widest = 0;
  private mostDirectives = 0;
  private merges = 0;
  /** Each fragment's response names, counted once (null while being counted: a cycle counts as empty). */
  private readonly fragmentNames = new Map<string, NameCounts | null>();

  constructor(
    private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>,
    private readonly limits: ShapeLimits,
  ) {}

  directives(count: number): void {
    if (count > this.mostDirectives) this.mostDirectives = count;
  }

  /**
   * Visits a selection set and every one beneath it. An inline fragment's set is measured for
   * breadth and directives, but its fields' merges are counted with the set that holds it, as the
   * rule collects them.
   */
  selectionSet(set: SelectionSetNode): void {
    const pending: Array<{ set: SelectionSetNode; merges: boolean }> = [{ set, merges: true }];
    while (pending.length > 0) {
      const { set: current, merges } = pending.pop() as { set: SelectionSetNode; merges: boolean };
      if (current.selections.length > this.widest) this.widest = current.selections.length;
      if (merges) this.countMerges(current);
      for (const selection of current.selections) {
        this.directives(selection.directives?.length ?? 0);
        if (selection.kind === Kind.FIELD) {
          if (selection.selectionSet !== undefined) pending.push({ set: selection.selectionSet, merges: true });
        } else if (selection.kind === Kind.INLINE_FRAGMENT) {
          pending.push({ set: selection.selectionSet, merges: false });
        }
      }
    }
  }

  private countMerges(set: SelectionSetNode): void {
    const { selections } = set;
    // Most sets hold fields alone, and many one field: nothing to count, nothing to allocate.
    if (selections.length === 1 && selections[0].kind === Kind.FIELD) return;
    for (const count of this.namesOf(set).values()) this.merges += (count * (count - 1)) / 2;
    if (selections.every((selection) => selection.kind === Kind.FIELD)) return;
    const spread = spreadsOf(set, new Set());
    this.merges += (spread.size * (spread.size - 1)) / 2;
  }

  /** The response names a selection set merges: its fields, its inline fragments', and its spread fragments'. */
  private namesOf(set: SelectionSetNode): NameCounts {
    const counts: NameCounts = new Map();
    this.addNames(set, counts);
    return counts;
  }

  /** Adds a set's names to `counts` (no closures: this runs on every selection set, before any limit has refused the document). */
  private addNames(set: SelectionSetNode, counts: NameCounts): void {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const name = selection.alias?.value ?? selection.name.value;
        counts.set(name, (counts.get(name) ?? 0) + 1);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        this.addNames(selection.selectionSet, counts);
      } else {
        for (const [name, count] of this.fragmentNamesOf(selection.name.value)) counts.set(name, (counts.get(name) ?? 0) + count);
      }
    }
  }

  private fragmentNamesOf(name: string): NameCounts {
    const known = this.fragmentNames.get(name);
    if (known !== undefined) return known ?? new Map();
    const fragment = this.fragments.get(name);
    if (fragment === undefined) return new Map();
    this.fragmentNames.set(name, null);
    const counts = this.namesOf(fragment.selectionSet);
    this.fragmentNames.set(name, counts);
    return counts;
  }

  get fieldMerges(): number {
    return this.merges;
  }

  errors(): GraphQLError[] {
    const { breadth, directivesPerNode, fieldMerges } = this.limits;
    const errors: GraphQLError[] = [];
    if (breadth !== false && this.widest > breadth) {
      errors.push(shapeError(ErrorCode.BreadthLimitExceeded, `A selection set lists ${this.widest} selections; the limit is ${breadth}.`, this.widest, breadth));
    }
    if (directivesPerNode !== false && this.mostDirectives > directivesPerNode) {
      errors.push(
        shapeError(
          ErrorCode.DirectiveLimitExceeded,
          `A field or fragment carries ${this.mostDirectives} directives; the limit is ${directivesPerNode}.`,
          this.mostDirectives,
          directivesPerNode,
        ),
      );
    }
    if (fieldMerges !== false && this.merges > fieldMerges) {
      // Fragments that spread each other twice over double the count at every level: past 2^53
      // it is no longer a whole number worth printing.
      const measured = Math.min(this.merges, Number.MAX_SAFE_INTEGER);
      const count = measured === Number.MAX_SAFE_INTEGER ? `more than ${measured}` : String(measured);
      errors.push(
        shapeError(
          ErrorCode.FieldMergeLimitExceeded,
          `The document merges ${count} pairs of fields and fragments in its selection sets; the limit is ${fieldMerges}.`,
          measured,
          fieldMerges,
        ),
      );
    }
    return errors;
  }
}

/** The fragments spread in a set, directly or in its inline fragments. */
function spreadsOf(set: SelectionSetNode, found: Set<string>): Set<string> {
  for (const selection of set.selections) {
    if (selection.kind === Kind.FRAGMENT_SPREAD) found.add(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT) spreadsOf(selection.selectionSet, found);
  }
  return found;
}

function shapeError(code: string, message: string, measured: number, limit: number): GraphQLError {
  return new GraphQLError(message, { extensions: { code, measured, limit } });
}
