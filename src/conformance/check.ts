/**
 * The vocabulary of the conformance kit (`graphql-glassbox conformance executor|http|ws`,
 * `runConformance`): a check, what it found, and the report a run produces. Every target kind
 * (an executor module, an HTTP server, a WebSocket server) writes its checks in these terms, so one
 * reporter prints them as a table, JSON or JUnit XML, and `--only`/`--skip` select them by id.
 */

/** How binding the rule a check verifies is: a MUST failure makes the command exit non-zero. */
export type Requirement = 'MUST' | 'SHOULD' | 'MAY';

/** What a check found. `skip` means the check could not run (and says why); it never counts as a pass. */
export type CheckStatus = 'pass' | 'fail' | 'skip';

/** What was sent and what came back, shown on a failure so the reader needs no debugger. */
export interface CheckEvidence {
  /** One sentence: what was expected and what happened instead (or why the check was skipped). */
  why: string;
  /** The request, message or operation sent, as the wire or the call saw it. */
  sent?: unknown;
  /** The response, messages, close code or result that came back. */
  received?: unknown;
  /** What the rule requires, when it is a value (a status code, a payload). */
  expected?: unknown;
}

/** One rule of a spec or protocol, checked against a target. */
export interface Check<Target> {
  /** Stable identifier, `<kind>.<area>.<rule>` in kebab case, e.g. `ws.init.duplicate-4429`. Never reused. */
  id: string;
  /** The rule, in one sentence, as the report's table shows it. */
  title: string;
  /** A link to the spec section or protocol line the rule comes from. */
  rule: string;
  requirement: Requirement;
  /** Runs the check. Resolves to `pass` (evidence optional), or to `fail`/`skip` with evidence. */
  run(target: Target): Promise<CheckOutcome>;
}

/**
 * A pass may carry evidence too, when the rule accepts more than one answer and the reader should
 * know which one the target gave (batching: the array was answered, or refused with a 400).
 */
export type CheckOutcome = { status: 'pass'; evidence?: CheckEvidence } | { status: 'fail' | 'skip'; evidence: CheckEvidence };

/** One line of a report. */
export interface CheckResult {
  id: string;
  title: string;
  rule: string;
  requirement: Requirement;
  status: CheckStatus;
  evidence?: CheckEvidence;
  durationMs: number;
}

/** The result of one run of the kit against one target. */
export interface ConformanceReport {
  kind: 'executor' | 'http' | 'ws';
  /** What was checked: the module path or the URL. */
  subject: string;
  results: CheckResult[];
}

/** Selection of checks by id: exact ids or prefixes ending in `.` or `*` (`ws.init.*`). */
export interface CheckSelection {
  only?: readonly string[];
  skip?: readonly string[];
}

/** True when a report has a failing MUST check: the command's exit code is then 1. */
export function hasMustFailure(report: ConformanceReport): boolean {
  return report.results.some((result) => result.status === 'fail' && result.requirement === 'MUST');
}
