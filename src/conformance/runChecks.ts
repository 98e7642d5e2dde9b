/**
 * Runs a kit's checks against one target: the selection (`--only`/`--skip`) first, then each check
 * in turn, one at a time so that no check's traffic disturbs another's timing. A check that throws
 * or outlives its timeout is a failure with that as its evidence: a broken target must never make
 * the run itself fail, and a check that cannot finish has not passed.
 */
import type { Check, CheckOutcome, CheckResult, CheckSelection, ConformanceReport } from './check.ts';

export interface RunChecksOptions<Target> {
  kind: ConformanceReport['kind'];
  /** What is checked, as the report names it: the module path or the URL. */
  subject: string;
  checks: ReadonlyArray<Check<Target>>;
  target: Target;
  selection?: CheckSelection;
  /** Longest one check may run, in milliseconds. Default 30,000. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** Whether `id` is named by `pattern`: the same id, or a prefix ending in `.` or `*` (`ws.init.*`). */
export function idMatches(pattern: string, id: string): boolean {
  if (pattern.endsWith('*')) return id.startsWith(pattern.slice(0, -1));
  if (pattern.endsWith('.')) return id.startsWith(pattern);
  return id === pattern;
}

/** The checks a selection keeps, in their order: named by `only` (all when absent), and not by `skip`. */
export function selectChecks<Target>(checks: ReadonlyArray<Check<Target>>, selection: CheckSelection = {}): Array<Check<Target>> {
  const { only, skip = [] } = selection;
  return checks.filter(
    (check) => (only === undefined || only.length === 0 || only.some((pattern) => idMatches(pattern, check.id))) && !skip.some((pattern) => idMatches(pattern, check.id)),
  );
}

/** Runs the selected checks and reports each, with how long it took. */
export async function runChecks<Target>(options: RunChecksOptions<Target>): Promise<ConformanceReport> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError(`runChecks: timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}.`);
  const results: CheckResult[] = [];
  for (const check of selectChecks(options.checks, options.selection)) {
    const started = performance.now();
    const outcome = await outcomeOf(check, options.target, timeoutMs);
    const durationMs = Math.round(performance.now() - started);
    const { id, title, rule, requirement } = check;
    // A pass keeps its evidence when it has some: which of the answers a rule accepts the target gave.
    results.push(outcome.evidence === undefined ? { id, title, rule, requirement, status: outcome.status, durationMs } : { id, title, rule, requirement, status: outcome.status, evidence: outcome.evidence, durationMs });
  }
  return { kind: options.kind, subject: options.subject, results };
}

/** The check's outcome, or a failure saying it threw or ran out of time. */
async function outcomeOf<Target>(check: Check<Target>, target: Target, timeoutMs: number): Promise<CheckOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'fail', evidence: { why: `The check did not finish within ${timeoutMs} ms.` } }), timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => check.run(target)), timedOut]);
  } catch (error) {
    return { status: 'fail', evidence: { why: `The check threw: ${error instanceof Error ? error.message : String(error)}` } };
  } finally {
    clearTimeout(timer);
  }
}
