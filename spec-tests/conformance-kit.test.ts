/**
 * The conformance kit itself (src/conformance): the runner (selection by id and prefix, a check
 * that throws or hangs), the report in its three forms (the table, the JSON shape, JUnit XML read
 * back), the `conformance` command's output and exit codes, and the executor target: it passes
 * against graphql-js and ours, and each kind of its checks fails against an executor broken in
 * exactly that way (spec-tests/support/brokenExecutors.ts), so no check passes vacuously.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { execute as graphqlExecute, subscribe as graphqlSubscribe } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand } from '../src/cli/commands.ts';
import { CONFORMANCE_USAGE } from '../src/cli/conformance.ts';
import type { Check, ConformanceReport } from '../src/conformance/check.ts';
import { generatedOperations } from '../src/conformance/executor/differential.ts';
import { loadFixtures } from '../src/conformance/executor/kitFiles.ts';
import type { ExecutorTarget } from '../src/conformance/executor/index.ts';
import { escapeXml, formatTable, toJson, toJunit } from '../src/conformance/report.ts';
import { runChecks, selectChecks } from '../src/conformance/runChecks.ts';
import { runConformance } from '../src/conformance/runConformance.ts';
import { execute, experimentalExecuteIncrementally, subscribe } from '../src/index.ts';
import * as broken from './support/brokenExecutors.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
mkdirSync(join(ROOT, '.tmp'), { recursive: true });
const scratch = mkdtempSync(join(ROOT, '.tmp', 'conformance-kit-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const check = (id: string, run: Check<string>['run'], requirement: Check<string>['requirement'] = 'MUST'): Check<string> => ({ id, title: `rule ${id}`, rule: `https://example.com/#${id}`, requirement, run });
const passing = (id: string) => check(id, async () => ({ status: 'pass' }));
const ids = (report: ConformanceReport) => report.results.map((result) => result.id);
const failing = (report: ConformanceReport) => report.results.filter((result) => result.status === 'fail').map((result) => result.id);

describe('runChecks', () => {
  const checks = ['ws.init.timeout-4408', 'ws.init.duplicate-4429', 'ws.ping.pong', 'ws.initialize'].map(passing);

  it('selects by exact id, by prefixes ending in "." or "*", and skips after selecting', () => {
    expect(selectChecks(checks, { only: ['ws.ping.pong'] }).map((c) => c.id)).toEqual(['ws.ping.pong']);
    expect(selectChecks(checks, { only: ['ws.init.*'] }).map((c) => c.id)).toEqual(['ws.init.timeout-4408', 'ws.init.duplicate-4429']);
    expect(selectChecks(checks, { only: ['ws.init.'] }).map((c) => c.id)).toEqual(['ws.init.timeout-4408', 'ws.init.duplicate-4429']);
    expect(selectChecks(checks, { only: ['ws.init*'] }).map((c) => c.id)).toEqual(['ws.init.timeout-4408', 'ws.init.duplicate-4429', 'ws.initialize']);
    expect(selectChecks(checks, { only: ['ws.init'] }).map((c) => c.id)).toEqual([]);
    expect(selectChecks(checks, { only: ['ws.init.*'], skip: ['ws.init.duplicate-4429'] }).map((c) => c.id)).toEqual(['ws.init.timeout-4408']);
    expect(selectChecks(checks, { skip: ['ws.*'] })).toEqual([]);
  });

  it('reports a check that throws, or outlives its timeout, as a failure saying so, and goes on', async () => {
    const report = await runChecks({
      kind: 'ws',
      subject: 'ws://example',
      target: 'target',
      timeoutMs: 50,
      checks: [
        check('a.throws', async () => {
          throw new Error('socket exploded');
        }),
        check('a.hangs', () => new Promise(() => undefined)),
        check('a.skips', async (target) => ({ status: 'skip', evidence: { why: `no subscription for ${target}` } })),
        passing('a.passes'),
        check('a.passes-saying', async () => ({ status: 'pass', evidence: { why: 'answered the batch with 400 (a refusal the rule allows)' } })),
      ],
    });
    expect(report.results.map(({ durationMs: _ms, ...rest }) => rest)).toEqual([
      { id: 'a.throws', title: 'rule a.throws', rule: 'https://example.com/#a.throws', requirement: 'MUST', status: 'fail', evidence: { why: 'The check threw: socket exploded' } },
      { id: 'a.hangs', title: 'rule a.hangs', rule: 'https://example.com/#a.hangs', requirement: 'MUST', status: 'fail', evidence: { why: 'The check did not finish within 50 ms.' } },
      { id: 'a.skips', title: 'rule a.skips', rule: 'https://example.com/#a.skips', requirement: 'MUST', status: 'skip', evidence: { why: 'no subscription for target' } },
      { id: 'a.passes', title: 'rule a.passes', rule: 'https://example.com/#a.passes', requirement: 'MUST', status: 'pass' },
      {
        id: 'a.passes-saying',
        title: 'rule a.passes-saying',
        rule: 'https://example.com/#a.passes-saying',
        requirement: 'MUST',
        status: 'pass',
        evidence: { why: 'answered the batch with 400 (a refusal the rule allows)' },
      },
    ]);
    expect(report.results[1]?.durationMs).toBeGreaterThanOrEqual(45);
  });

  it('refuses a timeout that is not a positive number', async () => {
    await expect(runChecks({ kind: 'ws', subject: 's', target: 't', checks: [], timeoutMs: 0 })).rejects.toThrow('runChecks: timeoutMs must be a positive number of milliseconds, got 0.');
  });
});

/** A report with one check of each status; the failure's evidence holds characters XML must escape. */
const SAMPLE: ConformanceReport = {
  kind: 'http',
  subject: 'http://localhost:4000/graphql',
  results: [
    { id: 'http.get.query', title: 'GET runs a query', rule: 'https://graphql.github.io/graphql-over-http/#sec-GET', requirement: 'MUST', status: 'pass', durationMs: 12 },
    { id: 'http.status.limits', title: 'A too deep document gets 400', rule: 'https://example.com/limits', requirement: 'SHOULD', status: 'fail', durationMs: 1500, evidence: { why: 'got 200 & <no error>', sent: { query: '{ a { a } }' }, expected: 400, received: 'status 200 "ok"\u0001' } },
    { id: 'http.sse.distinct', title: 'SSE distinct connections', rule: 'https://example.com/sse', requirement: 'MUST', status: 'skip', durationMs: 0, evidence: { why: 'no --subscription given' } },
  ],
};

/** A small strict XML reader: elements, attributes, text; throws on anything malformed. */
interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

function readXml(xml: string): XmlElement {
  const entity = (text: string) => {
    if (/&(?!(amp|lt|gt|quot|apos);)/.test(text) || /[<>]/.test(text.replace(/&[a-z]+;/g, ''))) throw new Error(`unescaped text: ${text}`);
    return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
  };
  const body = xml.replace(/^<\?xml version="1\.0" encoding="UTF-8"\?>\n/, '');
  const root: XmlElement = { name: '#root', attributes: {}, children: [], text: '' };
  const stack = [root];
  const token = /<(\/?)([A-Za-z][\w-]*)((?:\s+[\w-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let match;
  while (token.lastIndex < body.length && (match = token.exec(body)) !== null) {
    const [, closing, name, attributeText, selfClosing, text] = match;
    const top = stack.at(-1) as XmlElement;
    if (text !== undefined) top.text += entity(text);
    else if (closing === '/') {
      if (top.name !== name) throw new Error(`</${name}> closes <${top.name}>`);
      stack.pop();
    } else {
      const attributes = Object.fromEntries([...(attributeText ?? '').matchAll(/([\w-]+)="([^"]*)"/g)].map(([, key, value]) => [key, entity(value as string)]));
      const element: XmlElement = { name: name as string, attributes, children: [], text: '' };
      top.children.push(element);
      if (selfClosing !== '/') stack.push(element);
    }
  }
  if (token.lastIndex !== body.length || stack.length !== 1 || root.children.length !== 1) throw new Error('malformed XML');
  return root.children[0] as XmlElement;
}

describe('the report', () => {
  it('as JSON: kind, subject, the totals, and every result with its evidence', () => {
    expect(JSON.parse(toJson(SAMPLE))).toEqual({
      kind: 'http',
      subject: 'http://localhost:4000/graphql',
      summary: { pass: 1, fail: 1, mustFailures: 0, skip: 1 },
      results: SAMPLE.results,
    });
  });

  it('as JUnit XML: one testsuite, one testcase per check in its area, the failure and the skip with their evidence', () => {
    const suites = readXml(toJunit(SAMPLE));
    expect(suites.attributes).toEqual({ name: 'graphql-glassbox conformance', tests: '3', failures: '1', errors: '0', skipped: '1' });
    const [suite] = suites.children;
    expect(suite?.attributes).toEqual({ name: 'http', hostname: 'http://localhost:4000/graphql', tests: '3', failures: '1', errors: '0', skipped: '1', time: '1.512' });
    expect(suite?.children.map((testcase) => [testcase.attributes['classname'], testcase.attributes['name'], testcase.attributes['time'], testcase.children.map((child) => child.name)])).toEqual([
      ['http.get', 'http.get.query', '0.012', ['properties']],
      ['http.status', 'http.status.limits', '1.500', ['properties', 'failure']],
      ['http.sse', 'http.sse.distinct', '0.000', ['properties', 'skipped']],
    ]);
    const failure = suite?.children[1]?.children[1];
    expect(failure?.attributes).toEqual({ message: 'got 200 & <no error>', type: 'SHOULD' });
    expect(failure?.text).toBe('why: got 200 & <no error>\nsent: {"query":"{ a { a } }"}\nexpected: 400\nreceived: status 200 "ok"');
    expect(suite?.children[2]?.children[1]?.attributes).toEqual({ message: 'no --subscription given' });
    expect(suite?.children[0]?.children[0]?.children.map((property) => property.attributes)).toEqual([
      { name: 'requirement', value: 'MUST' },
      { name: 'rule', value: 'https://graphql.github.io/graphql-over-http/#sec-GET' },
      { name: 'title', value: 'GET runs a query' },
    ]);
  });

  it('escapes the five XML characters and drops those XML cannot hold', () => {
    expect(escapeXml(`a&b<c>d"e'f\u0000g\u001Fh\tI\n`)).toBe('a&amp;b&lt;c&gt;d&quot;e&apos;fgh\tI\n');
  });

  it('as a table: a row per check, then each failure and skip with why, sent, expected and received, then the totals', () => {
    expect(formatTable(SAMPLE)).toBe(
      [
        'Conformance of http://localhost:4000/graphql (http):',
        '',
        'check               req     status  rule',
        'http.get.query      MUST    PASS    GET runs a query',
        'http.status.limits  SHOULD  FAIL    A too deep document gets 400',
        'http.sse.distinct   MUST    SKIP    SSE distinct connections',
        '',
        'Failures:',
        '  http.status.limits (SHOULD, https://example.com/limits)',
        '    why: got 200 & <no error>',
        '    sent: {"query":"{ a { a } }"}',
        '    expected: 400',
        '    received: status 200 "ok"\u0001',
        '',
        'Skipped:',
        '  http.sse.distinct (MUST, https://example.com/sse)',
        '    why: no --subscription given',
        '',
        '1 passed, 1 failed (0 MUST), 1 skipped.',
      ].join('\n'),
    );
  });
});

describe('the executor target', () => {
  const run = (module: ExecutorTarget, count = 30) => runConformance({ kind: 'executor', module, generated: { count, seed: 7 } });

  it('passes every check against ours, and every check but the skipped subscription and incremental ones against graphql-js execute alone', async () => {
    const ours = await run({ execute, subscribe, experimentalExecuteIncrementally });
    expect(ours.results.length).toBeGreaterThanOrEqual(300);
    expect(ours.results.filter((result) => result.status !== 'pass').map((result) => result.id)).toEqual([]);
    const graphqlJs = await run({ execute: graphqlExecute });
    expect(failing(graphqlJs)).toEqual([]);
    const skipped = graphqlJs.results.filter((result) => result.status === 'skip');
    expect(skipped.map((result) => result.id)).toEqual(ours.results.map((result) => result.id).filter((id) => /^executor\.(subscription|incremental)\./.test(id)));
    expect(skipped.length).toBeGreaterThanOrEqual(44);
    expect(skipped[0]?.evidence?.why).toBe('The module exports no subscribe.');
    expect(skipped.at(-1)?.evidence?.why).toBe('The module exports no experimentalExecuteIncrementally.');
  }, 120_000);

  it('passes the subscription checks against graphql-js subscribe, and fails the stream ones against a subscribe that ends after one event', async () => {
    const only = ['executor.subscription.'];
    const reference = await runConformance({ kind: 'executor', module: { execute: graphqlExecute, subscribe: graphqlSubscribe }, generated: false, only });
    expect(reference.results.map((result) => [result.id, result.status])).toEqual([
      ['executor.subscription.events-in-order', 'pass'],
      ['executor.subscription.field-error-in-an-event', 'pass'],
      ['executor.subscription.source-cannot-start', 'pass'],
      ['executor.subscription.invalid-variable', 'pass'],
    ]);
    const report = await runConformance({ kind: 'executor', module: broken.deliversOneEvent, generated: false, only });
    expect(failing(report)).toEqual(['executor.subscription.events-in-order', 'executor.subscription.field-error-in-an-event']);
    expect(report.results[0]?.evidence).toMatchObject({ expected: { events: [{ data: { tick: 0 } }, { data: { tick: 1 } }, { data: { tick: 2 } }] }, received: { events: [{ data: { tick: 0 } }] } });
  });

  it('fails the incremental checks against an executor whose deferred and streamed payloads never come', async () => {
    const report = await runConformance({ kind: 'executor', module: broken.dropsSubsequentPayloads, generated: false, only: ['executor.incremental.'] });
    const deferred = report.results.find((result) => result.id === 'executor.incremental.defer.a-field-both-inline-and-deferred');
    expect(deferred).toMatchObject({ status: 'fail', requirement: 'SHOULD', evidence: { why: '1 payloads where graphql-js 17 gives 2' } });
    expect(report.results.filter((result) => result.status === 'fail').length).toBeGreaterThanOrEqual(30);
  }, 60_000);

  it('names each case by its section and name, and each differential run by its fixture', async () => {
    const report = await runConformance({ kind: 'executor', module: { execute: graphqlExecute }, generated: { count: 1, seed: 1 }, only: ['executor.6.4-arguments.*', 'executor.differential.'] });
    expect(ids(report).every((id) => /^executor\.(6\.4-arguments\.[a-z0-9-]+|differential\.[a-z]+)$/.test(id))).toBe(true);
    expect(ids(report).filter((id) => id.startsWith('executor.differential.'))).toEqual(['executor.differential.starwars', 'executor.differential.library', 'executor.differential.errors', 'executor.differential.bank', 'executor.differential.batching', 'executor.differential.cost']);
    expect(report.results[0]).toMatchObject({ requirement: 'MUST', rule: 'https://spec.graphql.org/September2025/#sec-Coercing-Field-Arguments' });
  });

  it('generates the same operations from the same seed, and others from another', async () => {
    const starwars = (await loadFixtures()).get('starwars');
    if (starwars === undefined) throw new Error('no starwars fixture');
    expect(generatedOperations(starwars, { count: 5, seed: 3 })).toEqual(generatedOperations(starwars, { count: 5, seed: 3 }));
    expect(generatedOperations(starwars, { count: 5, seed: 3 })).not.toEqual(generatedOperations(starwars, { count: 5, seed: 4 }));
  });

  it('fails every check against an executor that answers nothing: no check passes vacuously', async () => {
    const report = await run(broken.answersNothing, 5);
    expect(report.results.filter((result) => result.status !== 'fail').map((result) => result.id)).toEqual([]);
  }, 60_000);

  it('fails the error cases and the differential run against an executor that drops errors, and says what came back', async () => {
    const report = await run(broken.dropsErrors);
    const failed = failing(report);
    expect(failed).toContain('executor.6.7-errors.records-a-field-error-and-null-for-a-nullable-field-that-throws');
    expect(failed).toContain('executor.differential.errors');
    expect(failed.every((id) => !id.startsWith('executor.6.3-'))).toBe(true);
    const result = report.results.find((item) => item.id === 'executor.6.7-errors.records-a-field-error-and-null-for-a-nullable-field-that-throws');
    expect(result?.evidence?.why).toBe('the response holds data, not data, errors');
    expect(result?.evidence?.received).not.toHaveProperty('errors');
  }, 60_000);

  it('fails the field-order cases against an executor that reorders fields, saying the order is wrong', async () => {
    const report = await run(broken.reordersFields);
    const result = report.results.find((item) => item.id === 'executor.6.9-async.orders-response-keys-by-the-query-even-when-later-fields-finish-first');
    expect(result?.status).toBe('fail');
    expect(result?.evidence?.why).toBe('data holds the same entries in another order (fields must be in the order they were asked for)');
    expect(failing(report)).toContain('executor.differential.starwars');
  }, 60_000);

  it('fails the @skip cases against an executor that ignores @skip', async () => {
    const failed = failing(await run(broken.ignoresSkip));
    expect(failed.filter((id) => id.startsWith('executor.6.3-collect-fields.') && id.includes('skip')).length).toBeGreaterThan(0);
    expect(failed).toContain('executor.6.8-mutations.does-not-execute-a-mutation-field-skipped-by-a-directive');
  }, 60_000);

  it('fails the variable cases against an executor that coerces variables wrongly', async () => {
    const failed = failing(await run(broken.coercesVariablesWrongly));
    expect(failed.filter((id) => id.startsWith('executor.6.2-variables.')).length).toBeGreaterThan(0);
  }, 60_000);

  it('fails the error cases against an executor that drops error locations', async () => {
    const failed = failing(await run(broken.dropsLocations));
    expect(failed).toContain('executor.6.7-errors.records-a-field-error-and-null-for-a-nullable-field-that-throws');
  }, 60_000);

  it('reports an executor that throws as failing, with the error as evidence', async () => {
    const report = await runConformance({ kind: 'executor', module: broken.throws, generated: { count: 2, seed: 1 }, only: ['executor.6.1-operations.*', 'executor.differential.bank'] });
    expect(report.results.every((result) => result.status === 'fail')).toBe(true);
    expect(report.results[0]?.evidence?.why).toBe('execute threw instead of returning a result: this executor throws');
    expect(report.results.at(-1)?.evidence?.why).toBe('operation 1 of 2 (seed 4): execute threw: this executor throws');
  });
});

/** An executor module in the scratch folder (inside the repository, so that it finds graphql). */
function moduleFile(name: string, source: string): string {
  const path = join(scratch, name);
  writeFileSync(path, source);
  return path;
}

describe('the conformance command', () => {
  const good = moduleFile('good.mjs', "export { execute } from 'graphql';\n");
  const dropsErrors = moduleFile('drops-errors.mjs', "import { execute as run } from 'graphql';\nexport async function execute(args) { const { errors, ...rest } = await run(args); return rest; }\n");

  it('exits 0 against graphql-js, prints the table and writes the JSON and JUnit reports', async () => {
    const [json, junit] = [join(scratch, 'report.json'), join(scratch, 'report.xml')];
    const outcome = await runCommand(['conformance', 'executor', good, '--count', '3', '--seed', '2', '--only', 'executor.6.1-operations.,executor.differential.bank', '--json', json, '--junit', junit]);
    expect(outcome.code).toBe(0);
    expect(outcome.stderr).toBe('');
    expect(outcome.stdout.split('\n')[0]).toBe(`Conformance of ${good} (executor):`);
    expect(outcome.stdout.endsWith('\n15 passed, 0 failed (0 MUST), 0 skipped.')).toBe(true);
    const report = JSON.parse(readFileSync(json, 'utf8')) as { summary: unknown; results: unknown[] };
    expect(report.summary).toEqual({ pass: 15, fail: 0, mustFailures: 0, skip: 0 });
    expect(readXml(readFileSync(junit, 'utf8')).attributes['tests']).toBe('15');
  });

  it('exits 1 on a MUST failure, listing why, what was sent and what came back', async () => {
    const outcome = await runCommand(['conformance', 'executor', dropsErrors, '--count', '0', '--only', 'executor.6.7-errors.records-a-field-error-and-null-for-a-nullable-field-that-throws']);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toBe('conformance: a MUST check failed.');
    expect(outcome.stdout).toContain('Failures:\n  executor.6.7-errors.records-a-field-error-and-null-for-a-nullable-field-that-throws (MUST, https://spec.graphql.org/September2025/#sec-Handling-Execution-Errors)\n    why: the response holds data, not data, errors\n    sent: {"fixture":"errors",');
    expect(outcome.stdout).toContain('\n    expected: {"errors":[{"message":"Box 0 throws.","locations":[{"line":1,"column":12}],"path":["box","throws"]}],"data":{"box":{"ok":"ok at 0","throws":null}}}\n');
    expect(outcome.stdout).toContain('\n    received: {"data":{"box":{"ok":"ok at 0","throws":null}}}\n');
  });

  it('exits 0 when only SHOULD checks fail', async () => {
    const outcome = await runCommand(['conformance', 'executor', dropsErrors, '--count', '5', '--only', 'executor.differential.errors']);
    expect(outcome).toMatchObject({ code: 0, stderr: '' });
    expect(outcome.stdout).toContain('0 passed, 1 failed (0 MUST), 0 skipped.');
  });

  it('exits 2 on misuse, saying what is wrong, and 0 with the usage on --help', async () => {
    const misuse = async (args: string[], reason: string) => expect(await runCommand(['conformance', ...args])).toEqual({ code: 2, stdout: '', stderr: `${reason}\n\n${CONFORMANCE_USAGE}` });
    await misuse([], 'conformance needs a target kind: executor, http or ws.');
    await misuse(['grpc', 'x'], 'Unknown target kind grpc; expected executor, http or ws.');
    await misuse(['executor'], 'conformance executor takes one module; got 0.');
    await misuse(['executor', good, '--count', '-1'], '--count must be an integer of at least 0, got -1.');
    await misuse(['executor', good, '--header', 'a: b'], 'Unknown option --header for conformance executor.');
    await misuse(['http', 'http://x', '--header', 'nocolon'], "--header takes 'name: value', got nocolon.");
    await misuse(['ws', 'ws://x', '--connection-params', '[1]'], '--connection-params takes a JSON object, got [1].');
    await misuse(['executor', good, '--json'], '--json needs a value.');
    expect(await runCommand(['conformance', '--help'])).toEqual({ code: 0, stdout: CONFORMANCE_USAGE, stderr: '' });
  });

  it('exits 2 when the module exports no execute, or its execute cannot run a schema of this graphql', async () => {
    const none = moduleFile('none.mjs', 'export const nothing = 1;\n');
    expect(await runCommand(['conformance', 'executor', none])).toEqual({ code: 2, stdout: '', stderr: `conformance: ${none} exports no execute function (graphql-js's signature: execute({ schema, document, ... })).` });
    const other = moduleFile('other.mjs', 'export function execute() { return { errors: [{ message: "Expected schema to be a GraphQL schema." }] }; }\n');
    expect(await runCommand(['conformance', 'executor', other])).toEqual({
      code: 2,
      stdout: '',
      stderr: `conformance: ${other}'s execute answered {"errors":[{"message":"Expected schema to be a GraphQL schema."}]} to { ok } over type Query { ok: Boolean }, not {"data":{"ok":true}}; is it built on another copy of graphql than the one graphql-glassbox resolves?`,
    });
  });

  it('the bin writes what the command answers and exits with its code', async () => {
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'conformance', 'executor', dropsErrors, '--count', '0', '--only', 'executor.6.7-errors.*'], { cwd: ROOT });
    await expect(run).rejects.toMatchObject({ code: 1, stdout: expect.stringContaining('\nFailures:\n'), stderr: 'conformance: a MUST check failed.\n' });
  });
});
