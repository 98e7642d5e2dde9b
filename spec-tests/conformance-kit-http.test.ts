/**
 * The conformance kit's HTTP target (`httpChecks`): graphql-http's server audits, one check each,
 * and the kit's own checks of what they do not cover (SSE, multipart incremental delivery,
 * batching, documents too deep or too large). Against createServer every check passes, except the
 * three MAY audits of GET requests it declines on purpose (a GET without a preflight header is
 * refused as a possible cross-site request forgery); each check fails against the server made
 * wrong in exactly the way its rule forbids (support/brokenHttpServer.ts), with the request sent
 * and the response received as evidence.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { Check } from '../src/conformance/check.ts';
import { httpChecks } from '../src/conformance/http/index.ts';
import type { HttpTargetOptions } from '../src/conformance/http/index.ts';
import { BROKEN_HTTP, startBrokenHttpServer } from './support/brokenHttpServer.ts';
import { FINITE_SUBSCRIPTION, QUERY, SUBSCRIPTION, startOurs } from './support/conformanceServers.ts';
import type { Started } from './support/conformanceServers.ts';

const checks = await httpChecks();
const ids = checks.map((check) => check.id);

function check(id: string): Check<HttpTargetOptions> {
  const found = checks.find((each) => each.id === id);
  if (found === undefined) throw new Error(`No check ${id}.`);
  return found;
}

function target(server: Started, options: Partial<HttpTargetOptions> = {}): HttpTargetOptions {
  return { url: server.url, query: QUERY, subscription: SUBSCRIPTION, timeoutMs: 5000, ...options };
}

/** The MAY audits createServer fails on purpose: GET without a preflight header is refused (CSRF). */
const DECLINED_BY_US = ['http.audit.5a70', 'http.audit.d6d5', 'http.audit.6a70'];

/** The checks whose pass says which of the accepted answers came, and what createServer answers. */
const PASS_EVIDENCE: Record<string, string> = {
  'http.batching.array': 'Batching supported: an array of 2 results.',
  'http.limits.deep-document': 'Refused with 400: Cannot query field "a" on type "Query".',
  'http.limits.large-document': 'Refused with 413.',
};

describe('the HTTP checks', () => {
  it("are graphql-http's audits, one check each with the audit's id and requirement, then the kit's own", async () => {
    const { serverAudits } = await import('graphql-http');
    const audits = serverAudits({ url: 'http://127.0.0.1/' });
    expect(ids.slice(0, audits.length)).toEqual(audits.map((audit) => `http.audit.${audit.id.toLowerCase()}`));
    expect(checks.slice(0, audits.length).map((each) => each.requirement)).toEqual(audits.map((audit) => (audit.name.startsWith('MUST') ? 'MUST' : audit.name.startsWith('SHOULD') ? 'SHOULD' : 'MAY')));
    expect(ids.slice(audits.length)).toEqual([
      'http.sse.query-next-complete',
      'http.sse.subscription-next',
      'http.sse.validation-errors-in-stream',
      'http.incremental.multipart-defer',
      'http.batching.array',
      'http.limits.deep-document',
      'http.limits.large-document',
    ]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const each of checks) expect(each.rule).toMatch(/^https:\/\//);
  });

  it('each has a broken server that must make it fail, and no broken server is for a check that does not exist', () => {
    expect(Object.keys(BROKEN_HTTP).sort()).toEqual([...ids].sort());
  });
});

describe('against createServer', () => {
  let server: Started;
  beforeAll(async () => {
    server = await startOurs();
  });
  afterAll(() => server.close());

  it.each(ids.filter((id) => !DECLINED_BY_US.includes(id)))('%s passes', async (id) => {
    const outcome = await check(id).run(target(server));
    expect(outcome).toEqual(id in PASS_EVIDENCE ? { status: 'pass', evidence: { why: PASS_EVIDENCE[id] } } : { status: 'pass' });
  });

  it.each(DECLINED_BY_US)('%s (MAY) fails, with the CSRF refusal as evidence', async (id) => {
    const outcome = await check(id).run(target(server));
    expect(outcome).toMatchObject({ status: 'fail', evidence: { sent: { method: 'GET' }, received: { status: 400, body: expect.stringContaining('CSRF_PREVENTED') } } });
  });

  it.each(['http.sse.query-next-complete', 'http.incremental.multipart-defer'])('%s is skipped, naming the option, without a query', async (id) => {
    const outcome = await check(id).run({ url: server.url, timeoutMs: 5000 });
    expect(outcome).toEqual({ status: 'skip', evidence: { why: expect.stringContaining('`query` option (--query on the command line)') } });
  });

  it('http.sse.subscription-next is skipped, naming the option, without a subscription', async () => {
    const outcome = await check('http.sse.subscription-next').run({ url: server.url, query: QUERY, timeoutMs: 5000 });
    expect(outcome).toEqual({ status: 'skip', evidence: { why: expect.stringContaining('`subscription` option (--subscription on the command line)') } });
  });

  it('http.sse.subscription-next passes for a subscription that ends, with its events then complete', async () => {
    expect(await check('http.sse.subscription-next').run(target(server, { subscription: FINITE_SUBSCRIPTION }))).toEqual({ status: 'pass' });
  });
});

describe('checks skipped for a server that does not speak what they check', () => {
  it.each(['http.sse.query-next-complete', 'http.sse.subscription-next', 'http.sse.validation-errors-in-stream'])('%s is skipped when the server answers 406 to Accept: text/event-stream', async (id) => {
    const refusing = await startBrokenHttpServer({ answer: (request) => ((request.headers.accept ?? '').includes('text/event-stream') ? { status: 406, headers: { 'content-type': 'application/json' }, body: '{"errors":[{"message":"Not acceptable"}]}' } : undefined) });
    onTestFinished(() => refusing.close());
    const outcome = await check(id).run(target(refusing));
    expect(outcome).toMatchObject({ status: 'skip', evidence: { why: 'The server does not serve GraphQL over SSE: it answered 406 application/json to Accept: text/event-stream.' } });
  });

  it('http.incremental.multipart-defer is skipped when the server refuses @defer with a 400 naming it', async () => {
    const refusing = await startBrokenHttpServer({ answer: (request) => ((request.headers.accept ?? '').includes('multipart/mixed') ? { status: 400, headers: { 'content-type': 'application/json' }, body: '{"errors":[{"message":"Unknown directive \\"@defer\\"."}]}' } : undefined) });
    onTestFinished(() => refusing.close());
    const outcome = await check('http.incremental.multipart-defer').run(target(refusing));
    expect(outcome).toMatchObject({ status: 'skip', evidence: { why: 'The server does not deliver @defer over multipart/mixed: it answered 400 application/json "Unknown directive "@defer".".' } });
  });
});

describe('each check fails against the server broken in its way', () => {
  it.each(Object.entries(BROKEN_HTTP).map(([id, variant]) => [id, variant.wrong, variant.fault] as const))('%s fails against a server that %s', async (id, _wrong, fault) => {
    const broken = await startBrokenHttpServer(fault);
    onTestFinished(() => broken.close());
    const outcome = await check(id).run(target(broken));
    expect(outcome).toMatchObject({ status: 'fail', evidence: { why: expect.any(String), sent: { url: expect.stringContaining('/graphql') }, received: expect.anything() } });
  });
});

describe('without graphql-http installed', () => {
  it('building the HTTP checks rejects with "install graphql-http to run the HTTP audits"', async () => {
    vi.resetModules();
    vi.doMock('graphql-http', () => {
      throw new Error("Cannot find package 'graphql-http'");
    });
    onTestFinished(() => {
      vi.doUnmock('graphql-http');
      vi.resetModules();
    });
    const { httpChecks: withoutLibrary } = await import('../src/conformance/http/index.ts');
    await expect(withoutLibrary()).rejects.toThrow(/^install graphql-http to run the HTTP audits \(npm install --save-dev graphql-http\): /);
  });
});
