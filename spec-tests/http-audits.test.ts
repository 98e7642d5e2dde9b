/**
 * The GraphQL-over-HTTP audits of graphql-http (`serverAudits`), run against our server on
 * loopback: one test per audit, named with its id and its text.
 *
 * Every MUST and SHOULD audit must pass. A MAY audit is optional by definition, so its outcome
 * is recorded, not required: the test asserts only that the audit ran to a result, and the
 * results are printed as a Markdown table (for the README) once the suite is done. graphql-http
 * reports a failed MAY audit as `notice` (a failed SHOULD is `warn`, a failed MUST `error`).
 */
import { serverAudits } from 'graphql-http';
import type { AuditResult } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from './support/httpServer.ts';
import type { StartedServer } from './support/httpServer.ts';

let started: StartedServer | undefined;

beforeAll(async () => {
  started = await startServer();
});

afterAll(async () => {
  await started?.close();
});

/** The audits take the URL lazily, so they can be listed before the server has a port. */
const audits = serverAudits({
  url: () => {
    if (started === undefined) throw new Error('The server has not started.');
    return started.url;
  },
  fetchFn: fetch,
});

const required = audits.filter((audit) => !audit.name.startsWith('MAY'));
const optional = audits.filter((audit) => audit.name.startsWith('MAY'));
const optionalResults: AuditResult[] = [];

/** Why an audit failed, with the response that made it fail. */
async function explain(result: AuditResult): Promise<string> {
  if (result.status === 'ok') return 'ok';
  const body = await result.response.text().catch(() => '(body unreadable)');
  return `${result.status}: ${result.reason}\n  response ${result.response.status} ${result.response.headers.get('content-type') ?? '(no content-type)'}\n  ${body}`;
}

describe('GraphQL over HTTP: the MUST and SHOULD audits pass', () => {
  it('lists the audits of graphql-http 1.23', () => {
    expect(required.length).toBeGreaterThanOrEqual(30);
    expect(optional.length).toBeGreaterThanOrEqual(15);
  });

  it.each(required.map((audit) => [`${audit.id} ${audit.name}`, audit] as const))('%s', async (_title, audit) => {
    const result = await audit.fn();
    expect(result.status, await explain(result)).toBe('ok');
  });
});

describe('GraphQL over HTTP: the MAY audits run, and their outcomes are recorded', () => {
  it.each(optional.map((audit) => [`${audit.id} ${audit.name}`, audit] as const))('%s', async (_title, audit) => {
    const result = await audit.fn();
    optionalResults.push(result);
    expect(['ok', 'notice']).toContain(result.status);
  });

  afterAll(() => {
    const rows = optionalResults.map((result) => {
      const outcome = result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason} (got ${result.response.status})`;
      return `| ${result.id} | ${result.name.replace(/\|/g, '\\|')} | ${outcome.replace(/\|/g, '\\|')} |`;
    });
    const passed = optionalResults.filter((result) => result.status === 'ok').length;
    const table = [
      `MAY audits of graphql-http: ${passed} of ${optionalResults.length} pass`,
      '',
      '| id | audit | result |',
      '|---|---|---|',
      ...rows,
    ].join('\n');
    process.stdout.write(`\n${table}\n\n`);
  });
});
