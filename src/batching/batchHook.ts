/**
 * A process-wide hook on every batch a BatchLoader sends, for observers that are not the
 * execution's own trace (OpenTelemetry spans: observability/openTelemetry.ts). Unset, a batch
 * pays one read of a module variable.
 */
export interface BatchHook {
  /** A batch function is about to be called with `keys` keys: what `settled` is given back. */
  started(loader: string, keys: number): unknown;
  /** Its answer came (error undefined) or it failed. */
  settled(token: unknown, error: unknown): void;
}

let current: BatchHook | null = null;

/** Sets (or with null clears) the hook every batch is told of. */
export function setBatchHook(hook: BatchHook | null): void {
  current = hook;
}

/** The hook now (null: none). */
export function batchHook(): BatchHook | null {
  return current;
}
