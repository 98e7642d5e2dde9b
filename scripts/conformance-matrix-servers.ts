/**
 * The server half of the published conformance matrix: the kit's HTTP checks (graphql-http's
 * audits and the kit's own) and WebSocket checks (graphql-transport-ws) run against every peer
 * of scripts/conformance-matrix/peers.ts in one run, and the table written into
 * docs/conformance.md between `<!-- server-matrix:start -->` and `<!-- server-matrix:end -->`.
 *
 *   npx tsx scripts/conformance-matrix-servers.ts            # measure, print, write the doc
 *   npx tsx scripts/conformance-matrix-servers.ts --print    # measure and print only
 *
 * Every peer serves the same schema and gets the same options (`{ hello }`, `subscription { tick }`)
 * and a 5,000 ms wait, longer than the 3,000 ms ConnectionInit timeout graphql-ws and we default to.
 * Checks run one at a time, so no check's load disturbs another's timing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Check, CheckOutcome, CheckStatus, Requirement } from '../src/conformance/check.ts';
import { httpChecks } from '../src/conformance/http/index.ts';
import { wsChecks } from '../src/conformance/ws/index.ts';
import { QUERY, SUBSCRIPTION } from '../spec-tests/support/conformanceSchema.ts';
import { PEERS } from './conformance-matrix/peers.ts';

const DOC = new URL('../docs/conformance.md', import.meta.url);
const START = '<!-- server-matrix:start -->';
const END = '<!-- server-matrix:end -->';
const TIMEOUT_MS = 5000;

/** One column of a table: a peer and what each check found there (or why the peer did not run). */
interface Column {
  peer: string;
  outcomes: Map<string, CheckStatus> | string;
  /** For a pass that says which of the accepted answers came: that answer, in a few words. */
  notes: Map<string, string>;
}

/** Runs a check; a check that throws is a failure of the run, shown as such. */
async function outcomeOf<T>(check: Check<T>, target: T): Promise<CheckOutcome> {
  try {
    return await check.run(target);
  } catch (error) {
    return { status: 'fail', evidence: { why: `The check threw: ${error instanceof Error ? error.message : String(error)}` } };
  }
}

/**
 * The answer a passing check names, in a few words for a table cell: batched or refused, 413 or
 * 400 or executed, refused at the upgrade or closed with 4406.
 */
function shortNote(why: string): string {
  const rules: Array<[RegExp, (match: RegExpExecArray) => string]> = [
    [/^Batching supported/, () => 'batched'],
    [/^Batching refused with (\d+)/, (match) => `refused ${match[1]}`],
    [/^Refused with HTTP (\d+)/, (match) => `HTTP ${match[1]}`],
    [/^Refused with (\d+)/, (match) => match[1] ?? ''],
    [/^Executed/, () => 'executed'],
    [/^Answered 200 with errors/, () => '200 + errors'],
    [/closed with 4406/, () => '4406'],
  ];
  for (const [pattern, say] of rules) {
    const match = pattern.exec(why);
    if (match !== null) return say(match);
  }
  return '';
}

async function runAll<T>(checks: ReadonlyArray<Check<T>>, target: T, label: string, notes: Map<string, string>): Promise<Map<string, CheckStatus>> {
  const outcomes = new Map<string, CheckStatus>();
  for (const check of checks) {
    const outcome = await outcomeOf(check, target);
    outcomes.set(check.id, outcome.status);
    if (outcome.status === 'pass' && outcome.evidence !== undefined) notes.set(check.id, shortNote(outcome.evidence.why));
    if (outcome.status === 'fail') process.stderr.write(`${label} ${check.id} (${check.requirement}): ${outcome.evidence.why}\n`);
  }
  return outcomes;
}

/** Measures every peer: its HTTP column and its WebSocket column. */
async function measure(): Promise<{ http: Column[]; ws: Column[] }> {
  const http: Column[] = [];
  const ws: Column[] = [];
  const [httpList, wsList] = [await httpChecks(), wsChecks()];
  for (const peer of PEERS) {
    process.stderr.write(`-- ${peer.name}\n`);
    const running = await peer.start().catch((error: unknown) => `did not start: ${error instanceof Error ? error.message : String(error)}`);
    if (typeof running === 'string') {
      if (peer.serves.http) http.push({ peer: peer.name, outcomes: running, notes: new Map() });
      if (peer.serves.ws) ws.push({ peer: peer.name, outcomes: running, notes: new Map() });
      continue;
    }
    try {
      if (running.httpUrl !== undefined) {
        const notes = new Map<string, string>();
        http.push({ peer: peer.name, outcomes: await runAll(httpList, { url: running.httpUrl, query: QUERY, subscription: SUBSCRIPTION, timeoutMs: TIMEOUT_MS }, `${peer.name} http`, notes), notes });
      }
      if (running.wsUrl !== undefined) {
        const notes = new Map<string, string>();
        ws.push({ peer: peer.name, outcomes: await runAll(wsList, { url: running.wsUrl, query: QUERY, subscription: SUBSCRIPTION, timeoutMs: TIMEOUT_MS }, `${peer.name} ws`, notes), notes });
      }
    } finally {
      await running.close();
    }
  }
  return { http, ws };
}

const MARK: Record<CheckStatus, string> = { pass: '✓', fail: '✗', skip: 'skip' };

/** Per column: passed / run of the checks of this requirement, and how many were skipped. */
function summary(columns: Column[], checks: ReadonlyArray<{ id: string; requirement: Requirement }>, requirement: Requirement): string[] {
  const ids = checks.filter((check) => check.requirement === requirement).map((check) => check.id);
  return columns.map(({ outcomes }) => {
    if (typeof outcomes === 'string') return '—';
    const count = (status: CheckStatus) => ids.filter((id) => outcomes.get(id) === status).length;
    const skipped = count('skip');
    return `${count('pass')}/${ids.length - skipped}${skipped === 0 ? '' : ` (${skipped} skipped)`}`;
  });
}

/** A Markdown table: a summary line per requirement, then one line per check. */
function table(title: string, columns: Column[], checks: ReadonlyArray<{ id: string; requirement: Requirement }>): string {
  const head = `| ${title} | req. | ${columns.map((column) => column.peer).join(' | ')} |`;
  const rule = `|---|---|${columns.map(() => '---').join('|')}|`;
  const totals = (['MUST', 'SHOULD', 'MAY'] as const).map((requirement) => `| **${requirement} checks passed / run** | ${requirement} | ${summary(columns, checks, requirement).join(' | ')} |`);
  const rows = checks.map((check) => {
    const cells = columns.map(({ outcomes, notes }) => {
      if (typeof outcomes === 'string') return '—';
      const note = notes.get(check.id);
      return `${MARK[outcomes.get(check.id) ?? 'skip']}${note === undefined || note === '' ? '' : ` ${note}`}`;
    });
    return `| \`${check.id}\` | ${check.requirement} | ${cells.join(' | ')} |`;
  });
  const absent = columns.filter((column) => typeof column.outcomes === 'string').map((column) => `${column.peer}: ${String(column.outcomes)}.`);
  return [head, rule, ...totals, ...rows, ...(absent.length === 0 ? [] : ['', ...absent])].join('\n');
}

/** Replaces what lies between the markers (appending them when absent). */
function writeBetweenMarkers(text: string): void {
  const doc = readFileSync(DOC, 'utf8');
  const block = `${START}\n${text}\n${END}`;
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  const next = start !== -1 && end > start ? `${doc.slice(0, start)}${block}${doc.slice(end + END.length)}` : `${doc.trimEnd()}\n\n${block}\n`;
  writeFileSync(DOC, next);
}

const { http, ws } = await measure();
const [httpList, wsList] = [await httpChecks(), wsChecks()];
const versions = `Measured with Node ${process.version} by \`npx tsx scripts/conformance-matrix-servers.ts\`: ✓ passed (with the answer given, where the rule accepts several), ✗ failed, skip: the server does not offer what the check needs (SSE, multipart, authentication), — not measured.`;
const text = [versions, '', '#### GraphQL over HTTP', '', table('HTTP check', http, httpList), '', '#### GraphQL over WebSocket (graphql-transport-ws)', '', table('WebSocket check', ws, wsList)].join('\n');
process.stdout.write(`${text}\n`);
if (!process.argv.includes('--print')) writeBetweenMarkers(text);
process.exit(0);
