/**
 * Incremental delivery over HTTP: a query with `@defer`, asked for as `multipart/mixed`, comes
 * back as a multipart response whose parts are the initial result and the later payloads, the
 * last one saying `hasNext: false` (the GraphQL incremental delivery RFC, its HTTP transport).
 *
 * `@defer` is not part of the released spec: a server that answers 406 (or 415), or refuses the
 * directive (a 400 naming `defer`), or answers one JSON result, gets this check skipped with what
 * it answered. Only a server that answers `multipart/mixed` is held to the format.
 */
import { Kind, parse, print } from 'graphql';
import type { FieldNode, InlineFragmentNode, OperationDefinitionNode } from 'graphql';
import type { Check, CheckOutcome } from '../check.ts';
import { exchange, firstErrorMessage, jsonBody } from './exchange.ts';
import type { Exchange, HttpTargetOptions, ReceivedResponse } from './exchange.ts';

const RULE = 'https://github.com/graphql/graphql-over-http/blob/main/rfcs/IncrementalDelivery.md';
export const MULTIPART_ACCEPT = 'multipart/mixed; incrementalSpec=v0.2';

/**
 * The query with its whole selection deferred: `{ a b }` becomes `{ __typename ... @defer { a b } }`,
 * so the initial result has data and the deferred fragment comes later.
 */
export function deferredQuery(query: string): string {
  const document = parse(query);
  const definitions = document.definitions.map((definition) => {
    if (definition.kind !== Kind.OPERATION_DEFINITION) return definition;
    const typename: FieldNode = { kind: Kind.FIELD, name: { kind: Kind.NAME, value: '__typename' } };
    const deferred: InlineFragmentNode = {
      kind: Kind.INLINE_FRAGMENT,
      directives: [{ kind: Kind.DIRECTIVE, name: { kind: Kind.NAME, value: 'defer' } }],
      selectionSet: definition.selectionSet,
    };
    const operation: OperationDefinitionNode = { ...definition, selectionSet: { kind: Kind.SELECTION_SET, selections: [typename, deferred] } };
    return operation;
  });
  return print({ ...document, definitions });
}

/** The JSON bodies of a multipart response's parts, or why they could not be read. */
export function multipartBodies(received: ReceivedResponse): { bodies: unknown[] } | { problem: string } {
  const boundary = /boundary="?([^";]+)"?/i.exec(received.headers['content-type'] ?? '')?.[1];
  if (boundary === undefined) return { problem: 'the content-type has no boundary' };
  const delimiter = `--${boundary}`;
  const sections = received.body.split(delimiter);
  if (sections.length < 3) return { problem: 'the body has fewer than one part between delimiters' };
  const last = sections[sections.length - 1] ?? '';
  if (!last.startsWith('--')) return { problem: `the body does not end with the close delimiter ${delimiter}--` };
  const bodies: unknown[] = [];
  for (const section of sections.slice(1, -1)) {
    // A part is its headers, a blank line, then its body (RFC 2046 section 5.1.1).
    const part = section.replace(/^\r\n/, '');
    const split = part.indexOf('\r\n\r\n');
    const content = split === -1 ? part : part.slice(split + 4);
    try {
      bodies.push(JSON.parse(content.trim()) as unknown);
    } catch {
      return { problem: `a part is not JSON: ${content.trim().slice(0, 200)}` };
    }
  }
  return { bodies };
}

/** Why the parts are not an incremental result (initial data, later payloads, hasNext false last), or null. */
function payloadsProblem(bodies: unknown[]): string | null {
  const [first] = bodies;
  const last = bodies[bodies.length - 1];
  const hasNext = (body: unknown): unknown => (typeof body === 'object' && body !== null ? (body as { hasNext?: unknown }).hasNext : undefined);
  if (typeof first !== 'object' || first === null || !('data' in first)) return 'the first part has no data';
  if (bodies.length > 1 && hasNext(first) !== true) return 'the first of several parts does not say hasNext: true';
  if (hasNext(last) !== false) return 'the last part does not say hasNext: false';
  if (bodies.slice(0, -1).some((body) => hasNext(body) !== true)) return 'a part before the last says hasNext: false';
  return null;
}

/** A skip when the server does not deliver incrementally over multipart: it said so, one way or another. */
function notSupported(answer: Exchange): CheckOutcome | null {
  const { received, sent } = answer;
  if ('error' in received || received.status >= 500) return null;
  const contentType = received.headers['content-type'] ?? '';
  if (received.status === 200 && contentType.startsWith('multipart/mixed')) return null;
  const message = firstErrorMessage(jsonBody(received));
  const refused = received.status === 406 || received.status === 415 || (received.status === 400 && message !== undefined && /defer/i.test(message));
  const single = received.status === 200 && /json/.test(contentType);
  if (!refused && !single) return null;
  const why = `The server does not deliver @defer over multipart/mixed: it answered ${received.status} ${contentType || '(no content-type)'}${message === undefined ? '' : ` "${message}"`}.`;
  return { status: 'skip', evidence: { why, sent, received } };
}

export const incrementalCheck: Check<HttpTargetOptions> = {
  id: 'http.incremental.multipart-defer',
  title: 'A @defer query asked for as multipart/mixed is answered with JSON parts: data first, hasNext: false last, then the close delimiter',
  rule: RULE,
  requirement: 'MUST',
  async run(target) {
    if (target.query === undefined) return { status: 'skip', evidence: { why: 'Needs a query of the server\'s schema to defer: give one with the `query` option (--query on the command line).' } };
    const body = JSON.stringify({ query: deferredQuery(target.query) });
    const answer = await exchange(target, { method: 'POST', headers: { 'content-type': 'application/json', accept: MULTIPART_ACCEPT }, body });
    const skip = notSupported(answer);
    if (skip !== null) return skip;
    const expected = 'multipart/mixed; boundary=…: JSON parts, the first with data, the last with hasNext: false, then --boundary--';
    const { received, sent } = answer;
    if ('error' in received || received.status !== 200) return { status: 'fail', evidence: { why: 'The @defer query was not answered with 200.', sent, received, expected } };
    const parts = multipartBodies(received);
    const problem = 'problem' in parts ? parts.problem : payloadsProblem(parts.bodies);
    return problem === null ? { status: 'pass' } : { status: 'fail', evidence: { why: `The multipart response is malformed: ${problem}.`, sent, received, expected } };
  },
};
