/**
 * `conformance executor|http|ws <target> [options]`: the conformance kit (runConformance) from the
 * command line, fit for CI. Prints the report's table; writes it as JSON and JUnit XML when asked;
 * exits
 *
 *   0  no MUST check failed (SHOULD failures and skipped checks are listed, not fatal)
 *   1  a MUST check failed
 *   2  the command is misused, or the target cannot be loaded
 */
import { writeFileSync } from 'node:fs';
import { hasMustFailure } from '../conformance/check.ts';
import { formatTable, toJson, toJunit } from '../conformance/report.ts';
import { runConformance } from '../conformance/runConformance.ts';
import type { ConformanceOptions } from '../conformance/runConformance.ts';
import type { CommandOutcome } from './schemaCheck.ts';

export const CONFORMANCE_USAGE = `Usage: conformance executor <module> [--count N] [--seed S] [options]
       conformance http <url> [--query Q] [--subscription S] [--header 'name: value'] [options]
       conformance ws <url> [--subscription S] [--query Q] [--connection-params JSON] [--header 'name: value'] [options]

  executor <module>          a module exporting graphql-js's execute (optionally subscribe,
                             experimentalExecuteIncrementally), run over the kit's cases and a
                             differential run against the installed graphql-js
    --count N                generated operations per fixture (default 100; 0 for none)
    --seed S                 seed of the generated operations (default 1)
  http <url>                 a GraphQL over HTTP endpoint: graphql-http's audits, SSE, incremental
                             delivery, batching, limits
  ws <url>                   a graphql-transport-ws endpoint, rule by rule
    --query Q                a query that succeeds; checks that need one are skipped without it
    --subscription S         a subscription that emits events on its own
    --header 'name: value'   a header of every request (may be given more than once)
    --connection-params JSON the payload of connection_init (ws)

  --json <file>              write the report as JSON
  --junit <file>             write the report as JUnit XML
  --only id,id               run only these checks (a prefix ending in . or * names a group: ws.init.*)
  --skip id,id               run all but these checks
  --timeout ms               executor: longest a check may run; http/ws: longest one request or wait

Exits 0 when no MUST check fails, 1 when one does, 2 on a usage error or a target that cannot be loaded.`;

const KINDS = ['executor', 'http', 'ws'] as const;
type Kind = (typeof KINDS)[number];

/** Options each kind accepts, besides the common ones; each takes a value. */
const KIND_OPTIONS: Record<Kind, readonly string[]> = {
  executor: ['--count', '--seed'],
  http: ['--query', '--subscription', '--header'],
  ws: ['--query', '--subscription', '--header', '--connection-params'],
};
const COMMON_OPTIONS = ['--json', '--junit', '--only', '--skip', '--timeout'];

interface Arguments {
  options: ConformanceOptions;
  json?: string;
  junit?: string;
}

/** Option values by name (repeated ones in order), or why the arguments cannot be used. */
function readOptions(kind: Kind, args: ReadonlyArray<string>): { target: string; values: Map<string, string[]> } | string {
  const values = new Map<string, string[]>();
  const positional: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    if (!COMMON_OPTIONS.includes(arg) && !KIND_OPTIONS[kind].includes(arg)) return `Unknown option ${arg} for conformance ${kind}.`;
    const value = args[++index];
    if (value === undefined) return `${arg} needs a value.`;
    values.set(arg, [...(values.get(arg) ?? []), value]);
  }
  if (positional.length !== 1) return `conformance ${kind} takes one ${kind === 'executor' ? 'module' : 'URL'}; got ${positional.length}.`;
  return { target: positional[0] as string, values };
}

/** A whole number from an option, or why not. */
function integer(name: string, value: string | undefined, minimum: number): number | string | undefined {
  if (value === undefined) return undefined;
  const number = Number(value);
  return Number.isInteger(number) && number >= minimum ? number : `${name} must be an integer of at least ${minimum}, got ${value}.`;
}

function list(value: string | undefined): string[] | undefined {
  return value === undefined ? undefined : value.split(',').map((id) => id.trim()).filter((id) => id !== '');
}

/** Headers from `name: value` strings, or why one is not a header. */
function headers(values: string[] | undefined): Record<string, string> | string | undefined {
  if (values === undefined) return undefined;
  const result: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    if (colon <= 0) return `--header takes 'name: value', got ${value}.`;
    result[value.slice(0, colon).trim()] = value.slice(colon + 1).trim();
  }
  return result;
}

function readArguments(args: ReadonlyArray<string>): Arguments | string {
  const [kind, ...rest] = args;
  if (!KINDS.includes(kind as Kind)) return kind === undefined ? 'conformance needs a target kind: executor, http or ws.' : `Unknown target kind ${kind}; expected executor, http or ws.`;
  const read = readOptions(kind as Kind, rest);
  if (typeof read === 'string') return read;
  const one = (name: string) => read.values.get(name)?.at(-1);
  const [count, seed, timeoutMs] = [integer('--count', one('--count'), 0), integer('--seed', one('--seed'), -(2 ** 31)), integer('--timeout', one('--timeout'), 1)];
  const header = headers(read.values.get('--header'));
  for (const problem of [count, seed, timeoutMs, header]) if (typeof problem === 'string') return problem;
  const common = { only: list(one('--only')), skip: list(one('--skip')), timeoutMs: timeoutMs as number | undefined };
  const query = one('--query');
  const subscription = one('--subscription');
  const defined = <T extends object>(value: T): T => Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined)) as T;
  let options: ConformanceOptions;
  if (kind === 'executor') {
    options = defined({ kind, module: read.target, ...common, generated: defined({ count: count as number | undefined, seed: seed as number | undefined }) });
  } else if (kind === 'http') {
    options = defined({ kind, url: read.target, ...common, query, subscription, headers: header as Record<string, string> | undefined });
  } else {
    const params = one('--connection-params');
    let connectionParams: Record<string, unknown> | undefined;
    try {
      connectionParams = params === undefined ? undefined : (JSON.parse(params) as Record<string, unknown>);
    } catch {
      return `--connection-params takes a JSON object, got ${params}.`;
    }
    if (connectionParams !== undefined && (connectionParams === null || typeof connectionParams !== 'object' || Array.isArray(connectionParams))) return `--connection-params takes a JSON object, got ${params}.`;
    options = defined({ kind: 'ws' as const, url: read.target, ...common, query, subscription, connectionParams, headers: header as Record<string, string> | undefined });
  }
  return defined({ options, json: one('--json'), junit: one('--junit') });
}

/** Runs the kit; never throws, never exits. */
export async function conformance(args: ReadonlyArray<string>): Promise<CommandOutcome> {
  if (args.includes('--help') || args.includes('-h')) return { code: 0, stdout: CONFORMANCE_USAGE, stderr: '' };
  const parsed = readArguments(args);
  if (typeof parsed === 'string') return { code: 2, stdout: '', stderr: `${parsed}\n\n${CONFORMANCE_USAGE}` };
  let report;
  try {
    report = await runConformance(parsed.options);
    if (parsed.json !== undefined) writeFileSync(parsed.json, toJson(report));
    if (parsed.junit !== undefined) writeFileSync(parsed.junit, toJunit(report));
  } catch (error) {
    return { code: 2, stdout: '', stderr: `conformance: ${(error as Error).message}` };
  }
  const stdout = formatTable(report);
  if (hasMustFailure(report)) return { code: 1, stdout, stderr: 'conformance: a MUST check failed.' };
  return { code: 0, stdout, stderr: '' };
}
