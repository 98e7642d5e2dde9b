/**
 * The GraphQL-over-HTTP audits of graphql-http (`serverAudits`), run against our server on
 * loopback: one test per audit, named with its id and its text.
 *
 * Every MUST and SHOULD audit must pass. A MAY audit is optional by definition, so its outcome
 * is recorded, not required: the test asserts only that the audit ran to a result, and the
 * results are printed as a Markdown table (for the README) once the suite is done. graphql-http
 * reports a failed MAY audit as `notice` (a failed SHOULD is `warn`, a failed MUST `error`).
 *
 * The MUST and SHOULD audits run against a server with the default options. The MAY audits run
 * against one with `csrfPrevention: false`: three of them (5A70, D6D5, 6A70) send a GET with
 * neither a Content-Type nor a preflight header, exactly the request CSRF prevention (on by
 * default, security/csrf.ts) refuses, since any web page can send it cross-site. The audits
 * check GraphQL over HTTP, not browser safety; the last test shows that those three, and only
 * those, are refused under the defaults.
 */
import { serverAudits } from 'graphql-http';
import type { AuditResult } from 'graphql-http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from './support/httpServer.ts';
import type { StartedServer } from './support/httpServer.ts';

let started: StartedServer | undefined;
let withoutCsrf: StartedServer | undefined;

beforeAll(async () => {
  started = await startServer();
  withoutCsrf = await startServer({ csrfPrevention: false });
});

afterAll(async () => {
  await started?.close();
  await withoutCsrf?.close();
});

/** The audits of a server; they take the URL lazily, so they can be listed before the server has a port. */
function auditsOf(server: () => StartedServer | undefined) {
  return serverAudits({
    url: () => {
      const current = server();
      if (current === undefined) throw new Error('The server has not started.');
      return current.url;
    },
    fetchFn: fetch,
  });
}

const isMay = (audit: { name: string }) => audit.name.startsWith('MAY');
const required = auditsOf(() => started).filter((audit) => !isMay(audit));
const optional = auditsOf(() => withoutCsrf).filter(isMay);
const optionalUnderDefaults = auditsOf(() => started).filter(isMay);
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

describe('GraphQL over HTTP: the MAY audits run (csrfPrevention: false), and their outcomes are recorded', () => {
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

describe('GraphQL over HTTP: the MAY audits under the defaults (CSRF prevention on)', () => {
  it('fail only where they send a GET with no Content-Type and no preflight header, which is refused with 400 CSRF_PREVENTED', async () => {
    const outcomes = new Map<string, string>();
    for (const [index, audit] of optionalUnderDefaults.entries()) {
      const [underDefaults, without] = [await audit.fn(), await (optional[index] as (typeof optional)[number]).fn()];
      if (underDefaults.status === without.status) continue;
      const body = underDefaults.status === 'ok' ? null : ((await underDefaults.response.json()) as { error?: { code?: string } });
      outcomes.set(audit.id, `${underDefaults.status} ${underDefaults.status === 'ok' ? '' : underDefaults.response.status} ${body?.error?.code ?? ''}`);
    }
    expect(Object.fromEntries(outcomes)).toEqual({
      '5A70': 'notice 400 CSRF_PREVENTED',
      D6D5: 'notice 400 CSRF_PREVENTED',
      '6A70': 'notice 400 CSRF_PREVENTED',
    });
  });
});
