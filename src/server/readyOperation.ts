/**
 * An operation that has passed every check before execution (document, operation, limits,
 * authorization) for one set of grants: what the authorize phase hands to the execute phase,
 * and what a known request keeps so that the same text from the same kind of caller skips
 * straight to execution.
 */
import type { OperationDefinitionNode } from 'graphql';
import type { Analysis } from '../analysis/analyze.ts';
import type { OperationPlan, SelectionPlan } from '../execution/plan.ts';
import type { GrantAccess } from '../security/access.ts';

export class ReadyOperation {
  /** What the document phase hands on: this, or an outcome that ends the request (pipeline.ts `Checked`). */
  readonly kind = 'ready';

  constructor(
    /** The chosen operation, planned for `access` (it holds the schema, document and operation). */
    readonly plan: OperationPlan,
    readonly access: GrantAccess | null,
    readonly operationType: OperationDefinitionNode['operation'],
    /** Whether it reads the schema (introspection), which `introspection: { roles }` checks per caller. */
    readonly introspects: boolean,
    /** The cost analysis, for the cost report and a cost budget. */
    readonly analysis: Analysis | null,
    /** The root selection plan when the result is small, whose generated writer writes `data`. */
    readonly writer: SelectionPlan | null,
    /**
     * Whether a `@defer` or `@stream` of it applies, given the request's variables (the
     * analysis counts them): such an operation runs through the incremental executor, and only
     * on a request that can carry its payloads.
     */
    readonly defers: boolean,
  ) {}
}
