/**
 * graphql-http's server audits as checks of the kit: the library is used, not rewritten. Each
 * audit becomes one check, `http.audit.<audit id>`, whose requirement is the audit's own MUST,
 * SHOULD or MAY; graphql-http reports a failed MUST as `error`, a failed SHOULD as `warn` and a
 * failed MAY as `notice`, and each of them is a `fail` here, the requirement saying how much it
 * weighs.
 *
 * graphql-http is an optional peer dependency: it is imported when the HTTP checks are built, and
 * its absence is a clear error, not a crash at start-up of everything else the package does.
 */
import type { Check, CheckOutcome, Requirement } from '../check.ts';
import { DEFAULT_TIMEOUT_MS, cut } from './exchange.ts';
import type { HttpTargetOptions, SentRequest } from './exchange.ts';

type GraphqlHttp = typeof import('graphql-http');
type Audit = ReturnType<GraphqlHttp['serverAudits']>[number];

/** graphql-http, or the error saying how to get it. */
async function loadGraphqlHttp(): Promise<GraphqlHttp> {
  try {
    return await import('graphql-http');
  } catch (error) {
    throw new Error(`install graphql-http to run the HTTP audits (npm install --save-dev graphql-http): ${error instanceof Error ? error.message : String(error)}`);
  }
}

const SPEC = 'https://graphql.github.io/graphql-over-http/draft/';

/** The section of the GraphQL over HTTP spec an audit comes from, by the words of its name. */
function specSection(name: string): string {
  if (/JSON parsing failure/.test(name)) return `${SPEC}#sec-JSON-parsing-failure`;
  if (/when accepting application\/graphql-response\+json/.test(name) && /status code|data entry/.test(name)) return `${SPEC}#sec-application-graphql-response-json`;
  if (/when accepting application\/json/.test(name) && /status code/.test(name)) return `${SPEC}#sec-application-json`;
  if (/\{(query|operationName|variables|extensions)\}|parameters are invalid/.test(name)) return `${SPEC}#sec-Request-Parameters`;
  if (/GET/.test(name)) return `${SPEC}#sec-GET`;
  if (/POST/.test(name)) return `${SPEC}#sec-POST`;
  if (/utf-8/.test(name)) return `${SPEC}#sec-Serialization-Format`;
  return `${SPEC}#sec-Media-Types`;
}

/** The audit's requirement: the first word of its name (`MAY NOT ...` is a MAY). */
function requirementOf(name: string): Requirement {
  const word = name.split(' ')[0];
  return word === 'MUST' || word === 'SHOULD' ? word : 'MAY';
}

/** A fetch that adds the target's headers and timeout, and records the last request it sent. */
function recordingFetch(target: HttpTargetOptions, record: { sent?: SentRequest }): typeof fetch {
  return async (input, init) => {
    const headers = { ...target.headers, ...Object.fromEntries(new Headers(init?.headers).entries()) };
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const body = typeof init?.body === 'string' ? init.body : undefined;
    record.sent = { method: init?.method ?? 'GET', url, headers, ...(body === undefined ? {} : { body: cut(body) }) };
    return fetch(input, { ...init, headers, signal: AbortSignal.timeout(target.timeoutMs ?? DEFAULT_TIMEOUT_MS) });
  };
}

/** Runs the audit `id` of graphql-http against the target. */
async function runAudit(library: GraphqlHttp, id: string, target: HttpTargetOptions): Promise<CheckOutcome> {
  const record: { sent?: SentRequest } = {};
  const audit = library.serverAudits({ url: target.url, fetchFn: recordingFetch(target, record) }).find((each) => each.id === id);
  if (audit === undefined) return { status: 'skip', evidence: { why: `The installed graphql-http has no audit ${id}.` } };
  let result: Awaited<ReturnType<Audit['fn']>>;
  try {
    result = await audit.fn();
  } catch (error) {
    // graphql-http throws only when the audit could not run at all: no answer came.
    return { status: 'fail', evidence: { why: `graphql-http's audit ${id} got no answer: ${error instanceof Error ? error.message : String(error)}`, sent: record.sent } };
  }
  if (result.status === 'ok') return { status: 'pass' };
  const response = result.response;
  const body = await response.text().catch(() => '(the body could not be read)');
  return {
    status: 'fail',
    evidence: {
      why: `graphql-http's audit ${id} reports ${result.status}: ${result.reason}`,
      sent: record.sent,
      received: { status: response.status, headers: Object.fromEntries(response.headers.entries()), body: cut(body) },
    },
  };
}

/** One check per audit of the installed graphql-http. */
export async function auditChecks(): Promise<Array<Check<HttpTargetOptions>>> {
  const library = await loadGraphqlHttp();
  const audits: Audit[] = library.serverAudits({ url: 'http://127.0.0.1/' });
  return audits.map((audit) => ({
    id: `http.audit.${audit.id.toLowerCase()}`,
    title: `${audit.name} (graphql-http audit ${audit.id})`,
    rule: specSection(audit.name),
    requirement: requirementOf(audit.name),
    run: (target) => runAudit(library, audit.id, target),
  }));
}
