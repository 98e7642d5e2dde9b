/**
 * GraphQL over HTTP servers each wrong in exactly one way, for the conformance kit's tests: every
 * HTTP check (graphql-http's audits and the kit's own) must fail against the variant made to
 * break its rule.
 *
 * A variant is a proxy in front of a conforming server (createServer over the conformance schema):
 * it may answer a request itself (`answer`), and may change the answer the server gave (`alter`,
 * or `alterStream` for event streams, which pass through as they arrive). What a variant leaves
 * alone is answered exactly as the conforming server answers it.
 */
import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parse, validate } from 'graphql';
import { conformanceSchema, startOurs } from './conformanceServers.ts';
import type { Started } from './conformanceServers.ts';
import { closeNow, listenOnLoopback } from './httpServer.ts';

/** A request as the proxy read it. */
export interface ProxiedRequest {
  method: string;
  /** Path and query. */
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The body as JSON, or undefined. */
  json: unknown;
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface HttpFault {
  /** Answers the request without the server, or drops the connection; undefined forwards it. */
  answer?(request: ProxiedRequest): Answer | 'drop' | undefined;
  /** Changes the server's answer (not for event streams). */
  alter?(request: ProxiedRequest, answer: Answer): Answer;
  /** Changes each chunk of an event stream. */
  alterStream?(chunk: string): string;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-encoding', 'date']);

async function readRequest(request: IncomingMessage): Promise<ProxiedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
  return { method: request.method ?? 'GET', url: request.url ?? '/', headers, body, json };
}

function send(response: ServerResponse, answer: Answer): void {
  response.writeHead(answer.status, answer.headers).end(answer.body);
}

/** Forwards the request to upstream, then answers with the server's answer as the fault alters it. */
async function forward(request: ProxiedRequest, response: ServerResponse, upstreamOrigin: string, fault: HttpFault): Promise<void> {
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_BY_HOP.has(name) && name !== 'host'));
  const upstream = await fetch(`${upstreamOrigin}${request.url}`, { method: request.method, headers, ...(request.method === 'GET' || request.method === 'HEAD' ? {} : { body: request.body }) });
  const answerHeaders = Object.fromEntries([...upstream.headers.entries()].filter(([name]) => !HOP_BY_HOP.has(name)));
  if ((upstream.headers.get('content-type') ?? '').startsWith('text/event-stream') && upstream.body !== null) {
    response.writeHead(upstream.status, answerHeaders);
    const decoder = new TextDecoder();
    response.on('close', () => void upstream.body?.cancel().catch(() => undefined));
    for await (const chunk of upstream.body) {
      const text = decoder.decode(chunk as Uint8Array, { stream: true });
      response.write(fault.alterStream?.(text) ?? text);
    }
    response.end();
    return;
  }
  const answer: Answer = { status: upstream.status, headers: answerHeaders, body: await upstream.text() };
  send(response, fault.alter?.(request, answer) ?? answer);
}

/** Starts the variant `fault` in front of a conforming server of its own. */
export async function startBrokenHttpServer(fault: HttpFault): Promise<Started> {
  const upstream = await startOurs();
  const upstreamOrigin = new URL(upstream.url).origin;
  const server = http.createServer((request, response) => {
    void readRequest(request)
      .then(async (read) => {
        const answer = fault.answer?.(read);
        if (answer === 'drop') return void request.socket.destroy();
        if (answer !== undefined) return send(response, answer);
        await forward(read, response, upstreamOrigin, fault);
      })
      .catch(() => response.destroy());
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    // No upgrade is served here: every connection is the HTTP server's own, which closeNow ends.
    close: async () => {
      await closeNow(server);
      await upstream.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The variants
// ---------------------------------------------------------------------------------------------

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };
const errorAnswer = (status: number, message: string): Answer => ({ status, headers: JSON_TYPE, body: JSON.stringify({ errors: [{ message }] }) });
const field = (request: ProxiedRequest, name: string): unknown => (typeof request.json === 'object' && request.json !== null ? (request.json as Record<string, unknown>)[name] : undefined);
const has = (request: ProxiedRequest, name: string): boolean => typeof request.json === 'object' && request.json !== null && name in request.json;
const accepts = (request: ProxiedRequest, type: string): boolean => (request.headers.accept ?? '').includes(type);
const bodyOf = (answer: Answer): Record<string, unknown> | undefined => {
  try {
    return JSON.parse(answer.body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

/** Deepest nesting of braces in text. */
function nesting(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (const character of text) {
    if (character === '{') deepest = Math.max(deepest, ++depth);
    else if (character === '}') depth--;
  }
  return deepest;
}

/** What each variant gets wrong, and how. */
const VARIANTS = {
  ignoresGraphqlResponseJson: { wrong: 'answers application/json to a request accepting only application/graphql-response+json', fault: { alter: (_r, a) => ({ ...a, headers: { ...a.headers, 'content-type': (a.headers['content-type'] ?? '').replace('application/graphql-response+json', 'application/json') } }) } },
  answersTextPlain: { wrong: 'labels every JSON answer text/plain', fault: { alter: (_r, a) => ({ ...a, headers: { ...a.headers, 'content-type': 'text/plain; charset=utf-8' } }) } },
  rejectsNonAscii: { wrong: 'refuses a request body with characters outside ASCII', fault: { answer: (r) => (/[^\x00-\x7f]/.test(r.body) ? errorAnswer(400, 'ASCII only') : undefined) } },
  requiresCharset: { wrong: 'refuses a POST whose content-type names no charset', fault: { answer: (r) => (r.method === 'POST' && !/charset/i.test(r.headers['content-type'] ?? 'charset') ? errorAnswer(415, 'Say the charset') : undefined) } },
  refusesGraphqlResponseJson: { wrong: 'answers 406 to a request accepting only application/graphql-response+json', fault: { answer: (r) => (r.headers.accept === 'application/graphql-response+json' ? errorAnswer(406, 'Not acceptable') : undefined) } },
  rejectsOperationName: { wrong: 'refuses a request with an operationName', fault: { answer: (r) => (typeof field(r, 'operationName') === 'string' ? errorAnswer(400, 'No operationName') : undefined) } },
  rejectsNullParameters: { wrong: 'refuses null variables, operationName or extensions', fault: { answer: (r) => (['variables', 'operationName', 'extensions'].some((name) => has(r, name) && field(r, name) === null) ? errorAnswer(400, 'null parameter') : undefined) } },
  rejectsVariables: { wrong: 'refuses a request with variables', fault: { answer: (r) => (typeof field(r, 'variables') === 'object' && field(r, 'variables') !== null ? errorAnswer(400, 'No variables') : undefined) } },
  rejectsExtensions: { wrong: 'refuses a request with extensions', fault: { answer: (r) => (typeof field(r, 'extensions') === 'object' && field(r, 'extensions') !== null ? errorAnswer(400, 'No extensions') : undefined) } },
  noGet: { wrong: 'answers 405 to every GET', fault: { answer: (r) => (r.method === 'GET' ? errorAnswer(405, 'POST only') : undefined) } },
  mutationOverGet: { wrong: 'executes a mutation sent with GET', fault: { answer: (r) => (r.method === 'GET' && /mutation/.test(decodeURIComponent(r.url)) ? { status: 200, headers: JSON_TYPE, body: '{"data":{"__typename":"Mutation"}}' } : undefined) } },
  // fetch labels a string body text/plain when no content-type is given: read it as JSON anyway.
  assumesJson: { wrong: 'reads a POST that is not labelled JSON as JSON', fault: { answer: (r) => (r.method === 'POST' && !(r.headers['content-type'] ?? '').includes('json') && r.json !== undefined ? { status: 200, headers: JSON_TYPE, body: '{"data":{"__typename":"Query"}}' } : undefined) } },
  emptyBody500: { wrong: 'answers 500 to a POST without a body', fault: { answer: (r) => (r.method === 'POST' && r.body === '' ? errorAnswer(500, 'Internal server error') : undefined) } },
  status400Becomes422: { wrong: 'answers 422 where the server answers 400', fault: { alter: (_r, a) => (a.status === 400 ? { ...a, status: 422 } : a) } },
  invalidParams200: { wrong: 'answers 200 with errors to a request without a query', fault: { answer: (r) => (r.method === 'POST' && r.json !== undefined && !has(r, 'query') ? errorAnswer(200, 'No query') : undefined) } },
  jsonParseFailure302: { wrong: 'answers a body that is not JSON with a 302', fault: { answer: (r) => (r.method === 'POST' && r.body !== '' && r.json === undefined ? { status: 302, headers: {}, body: '' } : undefined) } },
  applicationJsonErrors400: { wrong: 'answers 400 to application/json requests whose document fails', fault: { alter: (r, a) => (r.headers.accept === 'application/json' && bodyOf(a)?.errors !== undefined && bodyOf(a)?.data === undefined ? { ...a, status: 400 } : a) } },
  graphqlResponseErrors200: { wrong: 'answers 200 to application/graphql-response+json requests whose document fails', fault: { alter: (_r, a) => ((a.headers['content-type'] ?? '').includes('graphql-response+json') && a.status === 400 ? { ...a, status: 200 } : a) } },
  addsDataNull: { wrong: 'adds data: null to every answer with errors', fault: { alter: (_r, a) => { const body = bodyOf(a); return body?.errors !== undefined && !('data' in body) ? { ...a, body: JSON.stringify({ data: null, ...body }) } : a; } } },
  sseWithoutComplete: { wrong: 'never sends the complete event', fault: { alterStream: (chunk) => chunk.replace(/event: complete\n(data:[^\n]*\n)?\n/g, '') } },
  sseEventsRenamed: { wrong: "names next events 'result'", fault: { alterStream: (chunk) => chunk.replaceAll('event: next', 'event: result') } },
  sseValidation400: {
    wrong: 'refuses a document that fails validation with 400 JSON before any event stream',
    fault: {
      answer: (r: ProxiedRequest) => {
        const query = field(r, 'query');
        if (!accepts(r, 'text/event-stream') || typeof query !== 'string') return undefined;
        const errors = validate(conformanceSchema(), parse(query));
        return errors.length === 0 ? undefined : errorAnswer(400, errors[0]?.message ?? 'invalid');
      },
    },
  },
  multipartUnclosed: { wrong: 'never writes the close delimiter of a multipart response', fault: { alter: (_r, a) => ((a.headers['content-type'] ?? '').startsWith('multipart/mixed') ? { ...a, body: a.body.replace(/-----\r\n$/, '---\r\n') } : a) } },
  batch500: { wrong: 'answers 500 to a batch', fault: { answer: (r) => (Array.isArray(r.json) ? errorAnswer(500, 'Internal server error') : undefined) } },
  deepDocument500: { wrong: 'answers 500 to a document nested past 500 levels (its parser overflows the stack)', fault: { answer: (r) => (nesting(String(field(r, 'query') ?? '')) > 500 ? { status: 500, headers: { 'content-type': 'text/plain' }, body: 'RangeError: Maximum call stack size exceeded' } : undefined) } },
  largeDocumentDropped: { wrong: 'drops the connection on a request body over 1 MiB', fault: { answer: (r) => (r.body.length > 1024 * 1024 ? 'drop' : undefined) } },
} satisfies Record<string, { wrong: string; fault: HttpFault }>;

type Variant = keyof typeof VARIANTS;

/** For each check id (graphql-http's audits by their id), the variant that breaks its rule. */
const BREAKS: Record<Variant, readonly string[]> = {
  ignoresGraphqlResponseJson: ['22eb'],
  answersTextPlain: ['4655', '47de', '80d8'],
  rejectsNonAscii: ['bf61'],
  requiresCharset: ['82a3', '78d5', '2c94', '03d4', '13ee'],
  refusesGraphqlResponseJson: ['34a2'],
  rejectsOperationName: ['8161', 'b8b3'],
  rejectsNullParameters: ['94b0', '94b1', '94b2', '0220', '0221', '0222'],
  rejectsVariables: ['2ea1', '28b9'],
  rejectsExtensions: ['428f', '1b7a'],
  noGet: ['5a70', 'd6d5', '6a70'],
  mutationOverGet: ['9c48'],
  assumesJson: ['9abe'],
  emptyBody500: ['a5bf'],
  status400Becomes422: ['423l', 'lkj0', 'lkj1', 'lkj2', 'lkj3', '6c00', '6c01', '6c02', '6c03', '4760', '4761', '4762', '4763', '58b0', '58b1', '58b2', '58b3', '3e3a', 'bcf8', 'b7n8', '556a', '74ff', '86ee'],
  invalidParams200: ['8764'],
  jsonParseFailure302: ['b6dc'],
  applicationJsonErrors400: ['572b', 'fde2', '7b9b'],
  graphqlResponseErrors200: ['865d', '51fe'],
  addsDataNull: ['d586', '5e5b'],
  sseWithoutComplete: ['http.sse.query-next-complete'],
  sseEventsRenamed: ['http.sse.subscription-next'],
  sseValidation400: ['http.sse.validation-errors-in-stream'],
  multipartUnclosed: ['http.incremental.multipart-defer'],
  batch500: ['http.batching.array'],
  deepDocument500: ['http.limits.deep-document'],
  largeDocumentDropped: ['http.limits.large-document'],
};

/** For each HTTP check id, the variant that must make it fail. */
export const BROKEN_HTTP: Record<string, { wrong: string; fault: HttpFault }> = Object.fromEntries(
  (Object.entries(BREAKS) as Array<[Variant, readonly string[]]>).flatMap(([variant, ids]) =>
    ids.map((id) => [id.startsWith('http.') ? id : `http.audit.${id}`, VARIANTS[variant] as { wrong: string; fault: HttpFault }]),
  ),
);
