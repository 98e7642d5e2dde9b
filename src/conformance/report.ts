/**
 * A run's report in the three forms the kit writes: a table for people (what the command prints),
 * JSON (`--json <file>`) for programs, and JUnit XML (`--junit <file>`) for the CI systems that draw
 * test results from it. Each failure carries its evidence (why, sent, expected, received) in all
 * three, so a reader never needs to run the check again to see what went wrong.
 */
import type { CheckEvidence, CheckResult, ConformanceReport } from './check.ts';
import { hasMustFailure } from './check.ts';

/** How many checks passed, failed (and of those, MUST ones) and were skipped. */
export interface ReportSummary {
  pass: number;
  fail: number;
  mustFailures: number;
  skip: number;
}

export function summarize(report: ConformanceReport): ReportSummary {
  const count = (status: CheckResult['status']) => report.results.filter((result) => result.status === status).length;
  const mustFailures = report.results.filter((result) => result.status === 'fail' && result.requirement === 'MUST').length;
  return { pass: count('pass'), fail: count('fail'), mustFailures, skip: count('skip') };
}

/** Longest evidence value the table shows, in characters; JSON and JUnit keep it whole. */
const SHOWN_LENGTH = 400;

/** A value as one line of JSON (strings as they are), for evidence. */
function printed(value: unknown): string {
  if (typeof value === 'string') return value;
  return JSON.stringify(value, (_key, inner: unknown) => (typeof inner === 'bigint' ? inner.toString() : inner instanceof Error ? inner.message : inner)) ?? String(value);
}

function shortened(text: string): string {
  const line = text.replace(/\s*\n\s*/g, ' ');
  return line.length <= SHOWN_LENGTH ? line : `${line.slice(0, SHOWN_LENGTH)}… (${line.length} characters)`;
}

/** The evidence's parts that are there, as `label: value` lines. */
function evidenceLines(evidence: CheckEvidence, show: (text: string) => string): string[] {
  const lines = [`why: ${evidence.why}`];
  for (const part of ['sent', 'expected', 'received'] as const) {
    if (evidence[part] !== undefined) lines.push(`${part}: ${show(printed(evidence[part]))}`);
  }
  return lines;
}

/** The table for people: one row per check, then every failure and skip with its evidence, then the totals. */
export function formatTable(report: ConformanceReport): string {
  const rows = report.results.map((result) => [result.id, result.requirement, result.status.toUpperCase(), result.title]);
  const widths = [0, 1, 2].map((column) => Math.max(...[['check', 'req', 'status'][column] as string, ...rows.map((row) => row[column] as string)].map((cell) => cell.length)));
  const line = (cells: string[]) => cells.map((cell, column) => (column < 3 ? cell.padEnd(widths[column] as number) : cell)).join('  ').trimEnd();
  const out = [`Conformance of ${report.subject} (${report.kind}):`, '', line(['check', 'req', 'status', 'rule']), ...rows.map(line)];
  for (const status of ['fail', 'skip'] as const) {
    const listed = report.results.filter((result) => result.status === status);
    if (listed.length === 0) continue;
    out.push('', status === 'fail' ? 'Failures:' : 'Skipped:');
    for (const result of listed) {
      out.push(`  ${result.id} (${result.requirement}, ${result.rule})`);
      if (result.evidence !== undefined) out.push(...evidenceLines(result.evidence, shortened).map((text) => `    ${text}`));
    }
  }
  const summary = summarize(report);
  out.push('', `${summary.pass} passed, ${summary.fail} failed (${summary.mustFailures} MUST), ${summary.skip} skipped.${hasMustFailure(report) ? ' A MUST check failed.' : ''}`);
  return out.join('\n');
}

/** The report as JSON: `{ kind, subject, summary, results }`, each result as check.ts's CheckResult. */
export function toJson(report: ConformanceReport): string {
  const json = { kind: report.kind, subject: report.subject, summary: summarize(report), results: report.results };
  return `${JSON.stringify(json, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value instanceof Error ? value.message : value), 2)}\n`;
}

/** Text made safe for XML character data and attribute values; characters XML 1.0 cannot hold are dropped. */
export function escapeXml(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** The area of a check: its id without the last segment (`ws.init` of `ws.init.duplicate-4429`). */
function areaOf(id: string): string {
  const last = id.lastIndexOf('.');
  return last > 0 ? id.slice(0, last) : id;
}

const seconds = (ms: number) => (ms / 1000).toFixed(3);

function testcase(result: CheckResult): string {
  const open = `    <testcase classname="${escapeXml(areaOf(result.id))}" name="${escapeXml(result.id)}" time="${seconds(result.durationMs)}">`;
  const properties = `      <properties><property name="requirement" value="${result.requirement}"/><property name="rule" value="${escapeXml(result.rule)}"/><property name="title" value="${escapeXml(result.title)}"/></properties>`;
  if (result.status === 'pass' || result.evidence === undefined) return `${open}\n${properties}\n    </testcase>`;
  const body = escapeXml(evidenceLines(result.evidence, (text) => text).join('\n'));
  const element = result.status === 'fail' ? `<failure message="${escapeXml(result.evidence.why)}" type="${result.requirement}">${body}</failure>` : `<skipped message="${escapeXml(result.evidence.why)}"/>`;
  return `${open}\n${properties}\n      ${element}\n    </testcase>`;
}

/** JUnit XML: one testsuite per report (per kind of target), one testcase per check, classname the check's area. */
export function toJunit(reports: ConformanceReport | ReadonlyArray<ConformanceReport>): string {
  const list: ReadonlyArray<ConformanceReport> = Array.isArray(reports) ? reports : [reports as ConformanceReport];
  const suites = list.map((report) => {
    const summary = summarize(report);
    const time = seconds(report.results.reduce((sum, result) => sum + result.durationMs, 0));
    const header = `  <testsuite name="${escapeXml(report.kind)}" hostname="${escapeXml(report.subject)}" tests="${report.results.length}" failures="${summary.fail}" errors="0" skipped="${summary.skip}" time="${time}">`;
    return [header, ...report.results.map(testcase), '  </testsuite>'].join('\n');
  });
  const totals = list.map(summarize).reduce((sum, summary) => ({ tests: sum.tests + summary.pass + summary.fail + summary.skip, fail: sum.fail + summary.fail, skip: sum.skip + summary.skip }), { tests: 0, fail: 0, skip: 0 });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="graphql-glassbox conformance" tests="${totals.tests}" failures="${totals.fail}" errors="0" skipped="${totals.skip}">\n${suites.join('\n')}\n</testsuites>\n`;
}
