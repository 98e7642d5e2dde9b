/**
 * Hostile input from every transport, against the demo served as `npm start` serves it
 * (startDemoResources: the demo schema, its resource routes under /api/v1, demoSecurity), once
 * in production and once not, both with csrfPrevention and a CORS list:
 *
 *   HTTP        POST and GET /graphql: generated, mutated and pathological documents (deep,
 *               wide, aliased, directive-laden, fragment cycles and fans, huge strings),
 *               variables that are deep, wide, huge or of the wrong type, random operationName
 *               and extensions, batches, bodies that are not JSON or not UTF-8, random
 *               Content-Type, Accept, Authorization, X-API-Key and Origin, repeated headers
 *   SSE         operations (subscriptions mostly) asked for as text/event-stream, over POST and
 *               GET, with reviews published to the subscriptions that stay open
 *   WebSocket   graphql-transport-ws sessions of random messages: connection_init with random
 *               payloads, subscribe with random ids and payloads, complete, ping, pong, garbage
 *               text, binary frames, reviews published in between; upgrades with random
 *               Origin, subprotocols and credentials
 *   resources   random methods, paths under /api (encoded characters, dot segments, very long
 *               ids), query strings, bodies and headers (If-Match, If-None-Match, API-Version)
 *
 * The laws, for every request: an answer within DEADLINE_MS and never a 5xx; JSON wherever
 * JSON is expected, with a stable code on every error in it (`error.code`, or `extensions.code`
 * of each GraphQL error); an event stream of `next` results and one `complete`; a WebSocket the
 * server closes gets a close code of the protocol (1011, 4500 or a connection dropped without a
 * close frame fail); nothing thrown out of the server's handlers, nothing it logs at level
 * error, no subscription at the pub/sub nor WebSocket held open once its client is gone, and
 * `{ __typename }` still answered. After every property, the process's heap has grown by less
 * than HEAP_GROWTH_LIMIT and its resident memory by less than RSS_GROWTH_LIMIT. Raw bytes over
 * 0x7f in the request line, which node's parser refuses before any handler runs, are left out of the properties (every case would be one)
 * and have a test of their own.
 *
 * Runs per property and server: HOSTILE_RUNS (default 500). To replay a failure, set
 * HOSTILE_SEED (and HOSTILE_PATH) to the `seed` (and `path`) fast-check printed. The generated
 * values are recipes (`{ kind: 'deep', shape: 'array', depth: 40000 }`, `{ kind: 'shape',
 * shape: 'fragmentFan', n: 30 }`) rather than the megabytes they stand for, so that a
 * counterexample is readable: jsonText, documentText and bodyBytes spell them out.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { WebSocket } from 'ws';
import type { RawData } from 'ws';
import type { LogEntry } from '../src/index.ts';
import { REVIEW_CREATED } from '../src/demo/librarySchema.ts';
import { SUBPROTOCOL, within } from './support/realtime.ts';
import { fixtureGraphiqlAssets, type FixtureAssets } from './support/graphiqlAssets.ts';
import { startDemoResources } from './support/resources.ts';
import type { DemoResourceServer } from './support/resources.ts';

const RUNS = Number(process.env.HOSTILE_RUNS ?? 500);
const SEED = process.env.HOSTILE_SEED === undefined ? undefined : Number(process.env.HOSTILE_SEED);
const PATH = process.env.HOSTILE_PATH;
const PROPERTY_OPTIONS = {
  numRuns: RUNS,
  // Shrinking a hang re-runs requests that each wait DEADLINE_MS: the best counterexample found by then is reported.
  interruptAfterTimeLimit: 240_000,
  ...(SEED === undefined ? {} : { seed: SEED }),
  ...(PATH === undefined ? {} : { path: PATH }),
};
const TEST_TIMEOUT_MS = 300_000;

/** The time any answer may take; past it the request counts as hung. */
const DEADLINE_MS = 5000;
/** How long an event stream that stays open is listened to, once its events were published. */
const LISTEN_MS = 30;
/**
 * What the process may keep after every case, clients and servers together: the heap and the
 * buffers outside it hold what is still referenced (the servers' caches, full by then, are
 * bounded well below this; measured: about 10 MB); resident memory also holds pages the
 * allocators have not given back yet (measured: about 70 MB on Node 20, 260 MB on Node 24).
 */
const HEAP_GROWTH_LIMIT = 64 * 1024 * 1024;
const RSS_GROWTH_LIMIT = 400 * 1024 * 1024;
/** The servers' shutdownGraceMs, and how long the suite waits for their shutdown() after it. */
const SHUTDOWN_GRACE_MS = 500;
const SHUTDOWN_MS = 5000;
const APP_ORIGIN = 'https://app.example';
/** The close codes a protocol answer may carry (graphql-ws's PROTOCOL.md, and RFC 6455's for frames). */
const PROTOCOL_CLOSE_CODES = new Set([1000, 1001, 1003, 1007, 1008, 1009, 4400, 4401, 4403, 4408, 4409, 4429]);
/** A stable code: upper-case words joined by underscores, as errors.ts spells them. */
const STABLE_CODE = /^[A-Z][A-Z0-9_]*$/;

// ---------------------------------------------------------------------------------------------
// The servers
// ---------------------------------------------------------------------------------------------

type TargetName = 'production' | 'development';
const TARGET_NAMES: ReadonlyArray<TargetName> = ['production', 'development'];

interface Target {
  readonly name: TargetName;
  readonly demo: DemoResourceServer;
  /** What the server logged at level error: a fault, since nothing served here fails by design. */
  readonly faults: LogEntry[];
}

const targets = new Map<TargetName, Target>();
let rssBefore = 0;
let heapBefore = 0;
/** A GraphiQL build of our own, so that a browser's GET gets the IDE whether or not this machine built it. */
let graphiqlAssets: FixtureAssets;

beforeAll(async () => {
  graphiqlAssets = await fixtureGraphiqlAssets();
  for (const name of TARGET_NAMES) targets.set(name, await startTarget(name));
  for (const target of targets.values()) await expectServing(target);
  rssBefore = residentMemory();
  heapBefore = keptMemory();
});

afterAll(async () => {
  await Promise.all([...targets.values()].map(closeWithin));
  await graphiqlAssets.remove();
}, SHUTDOWN_MS + 5000);

/** Closes a server, failing (rather than hanging the suite) if its shutdown() has not resolved SHUTDOWN_MS later. */
async function closeWithin(target: Target): Promise<void> {
  const open = target.demo.server.websocket?.size ?? 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), SHUTDOWN_MS);
  });
  const closed = await Promise.race([target.demo.close().then(() => true), late]);
  clearTimeout(timer);
  if (!closed) throw new Error(`The ${target.name} server's shutdown() had not resolved ${SHUTDOWN_MS} ms later (${open} WebSockets were open).`);
}

async function startTarget(name: TargetName): Promise<Target> {
  const faults: LogEntry[] = [];
  const production = name === 'production';
  const demo = await startDemoResources({
    env: production ? { NODE_ENV: 'production' } : {},
    extra: {
      production,
      csrfPrevention: true,
      cors: { origins: [APP_ORIGIN] },
      ...(production ? {} : { graphiql: { assetsDirectory: graphiqlAssets.directory } }),
      shutdownGraceMs: SHUTDOWN_GRACE_MS,
      log: (entry) => {
        if (entry.level === 'error') faults.push(entry);
      },
    },
  });
  return { name, demo, faults };
}

function targetNamed(name: TargetName): Target {
  const target = targets.get(name);
  if (target === undefined) throw new Error(`The ${name} server is read before the suite started it.`);
  return target;
}

/**
 * The process's resident memory after a full collection: what is kept, not the garbage of the
 * last few megabyte-sized cases. The worker has no `gc` of its own; the flag turns it on for
 * contexts made from then on.
 */
function residentMemory(): number {
  collectGarbage();
  return process.memoryUsage().rss;
}

/** The heap in use and the buffers outside it, after a full collection. */
function keptMemory(): number {
  collectGarbage();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

let collector: (() => void) | null = null;
function collectGarbage(): void {
  if (collector === null) {
    v8.setFlagsFromString('--expose-gc');
    collector = vm.runInNewContext('gc') as () => void;
  }
  collector();
}

/** Publishes a review to the demo's subscribers, as addReview does. */
async function publishReview(target: Target, bookId: string): Promise<void> {
  await target.demo.data.bus.publish(REVIEW_CREATED, { id: `p${randomBytes(4).toString('hex')}`, bookId, stars: 4, text: 'published by the property' });
}

// ---------------------------------------------------------------------------------------------
// What each case must leave behind
// ---------------------------------------------------------------------------------------------

/**
 * Errors thrown out of the server's handlers, or promises it left rejected, while the test runs:
 * collected instead of reported by the runner, so that the case that caused them fails.
 */
function watchUncaught(): unknown[] {
  const caught: unknown[] = [];
  const collect = (error: unknown): void => {
    caught.push(error);
  };
  const exceptionListeners = process.listeners('uncaughtException');
  const rejectionListeners = process.listeners('unhandledRejection');
  process.removeAllListeners('uncaughtException');
  process.removeAllListeners('unhandledRejection');
  process.on('uncaughtException', collect);
  process.on('unhandledRejection', collect);
  onTestFinished(() => {
    process.off('uncaughtException', collect);
    process.off('unhandledRejection', collect);
    for (const listener of exceptionListeners) process.on('uncaughtException', listener);
    for (const listener of rejectionListeners) process.on('unhandledRejection', listener);
  });
  return caught;
}

/** What a case may leave behind: counted before it, and again once its client is gone. */
interface Holdings {
  readonly subscriptions: number;
  readonly sockets: number;
}

function holdings(target: Target): Holdings {
  return { subscriptions: target.demo.data.events.subscriberCount(REVIEW_CREATED), sockets: target.demo.server.websocket?.size ?? 0 };
}

/**
 * Runs one case, then the laws of what it leaves: nothing thrown out of the server (reported
 * first, as it explains whatever else went wrong: a missing answer, a socket left open), the
 * case's own laws, nothing logged at level error, no subscription at the pub/sub nor WebSocket
 * more than before it once its client is gone, and `{ __typename }` still answered. Counting
 * against what was held before keeps a case from failing for what an earlier one left.
 */
async function soundCase(target: Target, caught: unknown[], run: () => Promise<void>): Promise<void> {
  const before = holdings(target);
  const failure = await run().then(
    () => null,
    (error: unknown) => error,
  );
  const left = await leftBehind(target, before, caught);
  const thrown = caught.splice(0).map(described);
  const faults = target.faults.splice(0).map((entry) => `${entry.message} ${described(entry.error)}`);
  expect(thrown, 'thrown out of the server').toEqual([]);
  if (failure !== null) throw failure;
  expect(faults, 'logged at level error').toEqual([]);
  expect(left, 'left behind once the client was gone').toEqual([]);
  await expectServing(target);
}

/** What the server still holds beyond `before`, once it let go of the case's connections (or DEADLINE_MS passed, or it threw). */
async function leftBehind(target: Target, before: Holdings, caught: unknown[]): Promise<string[]> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const now = holdings(target);
    const left = [
      ...(now.subscriptions > before.subscriptions ? [`${now.subscriptions - before.subscriptions} subscriptions to ${REVIEW_CREATED} at the pub/sub`] : []),
      ...(now.sockets > before.sockets ? [`${now.sockets - before.sockets} WebSockets the server holds open`] : []),
    ];
    if (left.length === 0 || caught.length > 0 || Date.now() >= deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function expectServing(target: Target): Promise<void> {
  const answer = await exchange(target.demo.port, {
    method: 'POST',
    path: '/graphql',
    headers: [['content-type', 'application/json']],
    body: Buffer.from('{"query":"{ __typename }"}'),
  });
  expect(answer.status, answer.text).toBe(200);
  expect((JSON.parse(answer.text) as { data?: unknown }).data).toEqual({ __typename: 'Query' });
}

function described(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return (error.stack ?? String(error)).split('\n').slice(0, 8).join('\n');
}

// ---------------------------------------------------------------------------------------------
// The HTTP client
// ---------------------------------------------------------------------------------------------

/** A request exactly as sent: the raw path, the headers in order (a name given twice is sent twice), the body's bytes. */
interface HttpRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: Buffer | null;
}

/** An answer; `open` when it is an event stream that had not ended once listened to. */
interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly text: string;
  readonly open: boolean;
}

/**
 * One request on a fresh connection. An event stream is listened to while `whileOpen` runs
 * (publishing events), then for LISTEN_MS, then hung up on; anything else is read to its end.
 * Fails when no answer (or no end) arrives within DEADLINE_MS.
 */
function exchange(port: number, request: HttpRequest, whileOpen: () => Promise<void> = async () => undefined): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request({ host: '127.0.0.1', port, method: request.method, path: request.path, headers: outgoingHeaders(request), agent: false });
    const deadline = setTimeout(() => outgoing.destroy(new Error(`No answer within ${DEADLINE_MS} ms.`)), DEADLINE_MS);
    outgoing.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      const finish = (open: boolean): void => {
        clearTimeout(deadline);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8'), open });
      };
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => finish(false));
      // Once hung up on, the response errs (aborted): no longer this request's failure.
      response.on('error', reject);
      if (!(response.headers['content-type'] ?? '').startsWith('text/event-stream')) return;
      void whileOpen()
        .then(() => new Promise((settle) => setTimeout(settle, LISTEN_MS)))
        .then(() => {
          if (response.complete) return;
          finish(true);
          outgoing.destroy();
        }, reject);
    });
    outgoing.end(request.body ?? undefined);
  });
}

function outgoingHeaders(request: HttpRequest): OutgoingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of request.headers) {
    const present = headers[name];
    headers[name] = present === undefined ? value : [...(Array.isArray(present) ? present : [present]), value];
  }
  // Node's client declares no length for the body of a GET, HEAD, DELETE or OPTIONS by itself.
  if (request.body !== null) headers['content-length'] = String(request.body.length);
  return headers;
}

function summary(request: HttpRequest, answer: Answer | null): string {
  const path = request.path.length > 300 ? `${request.path.slice(0, 300)}… (${request.path.length} characters)` : request.path;
  const headers = request.headers.map(([name, value]) => `${name}: ${value.length > 80 ? `${value.slice(0, 80)}… (${value.length})` : value}`);
  const sent = `${request.method} ${path} [${headers.join(' | ')}] with ${request.body === null ? 'no body' : `${request.body.length} bytes`}`;
  if (answer === null) return sent;
  return `${sent}\n→ ${answer.status} ${answer.headers['content-type'] ?? '(no content-type)'} ${answer.text.slice(0, 600)}`;
}

// ---------------------------------------------------------------------------------------------
// The laws of an answer
// ---------------------------------------------------------------------------------------------

/** What is wrong with an HTTP answer to a request: nothing, for an answer within the laws. */
function answerProblems(request: HttpRequest, answer: Answer, target: Target): string[] {
  if (answer.status >= 500) return [`status ${answer.status}`];
  // A header block too large, refused by node's parser before the method was seen in the read
  // that failed (a HEAD must get no body): the status alone, as node answers (clientError.ts).
  if (answer.status === 431 && answer.text === '') return [];
  const type = answer.headers['content-type'] ?? '';
  if (type.startsWith('text/event-stream')) return streamProblems(answer);
  if (type.startsWith('multipart/mixed')) return multipartProblems(answer, type);
  if (answer.text === '') return answer.status === 204 || answer.status === 304 || request.method === 'HEAD' ? [] : [`status ${answer.status} with an empty body`];
  if (isGraphiql(request, answer, target)) return [];
  if (!/^application\/(graphql-response\+)?json; charset=utf-8$/.test(type)) return [`a ${answer.status} body of type "${type}" where JSON was expected`];
  // The resource surface describes itself: an OpenAPI document, not a result.
  const describesItself = answer.status === 200 && /\/openapi\.json$/.test(request.path.split('?')[0] ?? '');
  return jsonProblems(answer.text, (body) => (describesItself ? openApiProblems(body) : bodyProblems(body, answer.status)));
}

function openApiProblems(body: unknown): string[] {
  return isRecord(body) && typeof body['openapi'] === 'string' ? [] : [`an OpenAPI document without "openapi": ${preview(body)}`];
}

/** The IDE's page or assets: a browser's GET of the endpoint, outside production; in production, the 406 page saying it is off. */
function isGraphiql(request: HttpRequest, answer: Answer, target: Target): boolean {
  const pathname = request.path.split('?')[0] ?? '';
  const type = answer.headers['content-type'] ?? '';
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (target.name !== 'development') return pathname === '/graphql' && answer.status === 406 && type.startsWith('text/html') && answer.text.includes('GraphiQL is off in production');
  if (answer.status !== 200) return false;
  if (pathname === '/graphql') return type.startsWith('text/html');
  // An asset, and nothing from outside the assets (the package's own package.json, say).
  return pathname.startsWith('/graphql/graphiql/') && /^(text\/css|text\/javascript|application\/javascript)/.test(type) && !answer.text.includes('"devDependencies"');
}

function bodyProblems(body: unknown, status: number): string[] {
  if (Array.isArray(body)) return status === 200 ? body.flatMap(resultProblems) : [`a batch of results with status ${status}`];
  if (!isRecord(body)) return ['a body that is not an object'];
  if ('error' in body) return status >= 400 ? httpErrorProblems(body) : [`an error body with status ${status}`];
  const problems = resultProblems(body);
  if (status >= 400 && !Array.isArray(body['errors'])) problems.push(`status ${status} without errors`);
  return problems;
}

/** A GraphQL result (or a resource's `{ data }`): data, errors and extensions only, each error coded. */
function resultProblems(result: unknown): string[] {
  if (!isRecord(result)) return [`a result that is not an object: ${preview(result)}`];
  const strangers = Object.keys(result).filter((key) => key !== 'data' && key !== 'errors' && key !== 'extensions');
  if (strangers.length > 0) return [`a result with members ${strangers.join(', ')}`];
  if (!('data' in result) && !('errors' in result)) return ['a result with neither data nor errors'];
  if (!('errors' in result)) return [];
  const errors = result['errors'];
  if (!Array.isArray(errors) || errors.length === 0) return [`errors that are not a non-empty list: ${preview(errors)}`];
  return errors.flatMap(graphqlErrorProblems);
}

function graphqlErrorProblems(error: unknown): string[] {
  if (!isRecord(error) || typeof error['message'] !== 'string') return [`an error without a message: ${preview(error)}`];
  const extensions = error['extensions'];
  const code = isRecord(extensions) ? extensions['code'] : undefined;
  return typeof code === 'string' && STABLE_CODE.test(code) ? [] : [`an error without a stable code: ${preview(error)}`];
}

function httpErrorProblems(body: Record<string, unknown>): string[] {
  const error = body['error'];
  if (!isRecord(error) || typeof error['message'] !== 'string') return [`an error body without a message: ${preview(body)}`];
  const code = error['code'];
  return typeof code === 'string' && STABLE_CODE.test(code) ? [] : [`an error body without a stable code: ${preview(body)}`];
}

/** An event stream: `next` events carrying results, then one `complete` (unless still open); heartbeats between. */
function streamProblems(answer: Answer): string[] {
  if (answer.status !== 200) return [`an event stream with status ${answer.status}`];
  const blocks = answer.text.split('\n\n');
  const rest = blocks.pop();
  const problems: string[] = [];
  if (!answer.open && rest !== '') problems.push(`a stream that ended inside an event: ${preview(rest)}`);
  let completed = false;
  for (const block of blocks) {
    const lines = block.split('\n').filter((line) => !line.startsWith(':'));
    if (lines.length === 0) continue;
    if (completed) problems.push(`an event after complete: ${preview(block)}`);
    const event = lines.find((line) => line.startsWith('event: '))?.slice('event: '.length);
    const data = lines.filter((line) => line.startsWith('data:')).map((line) => line.replace(/^data: ?/, '')).join('\n');
    if (event === 'complete') {
      completed = true;
    } else if (event === 'next') {
      // A subscription's event is a result; a deferring operation's, a payload of it.
      problems.push(...jsonProblems(data, resultOrPayloadProblems));
    } else {
      problems.push(`an event that is neither next nor complete: ${preview(block)}`);
    }
  }
  if (!answer.open && !completed) problems.push('a stream that ended without complete');
  return problems;
}

/** A result, or a payload of incremental delivery (@defer/@stream): what is wrong with it when it is neither. */
function resultOrPayloadProblems(value: unknown): string[] {
  const asResult = resultProblems(value);
  return asResult.length === 0 ? [] : isRecord(value) && 'hasNext' in value ? payloadProblems(value) : asResult;
}

/**
 * A payload of incremental delivery, in the current format (`pending`, `incremental` entries with
 * ids, `completed`) or the 2022 one (`incremental` entries with a path): its members, and every
 * error in it (at the top, in an incremental entry, in a completed entry) coded.
 */
function payloadProblems(payload: Record<string, unknown>): string[] {
  const allowed = ['data', 'errors', 'extensions', 'pending', 'incremental', 'completed', 'hasNext'];
  const strangers = Object.keys(payload).filter((key) => !allowed.includes(key));
  if (strangers.length > 0) return [`a payload with members ${strangers.join(', ')}`];
  if (typeof payload['hasNext'] !== 'boolean') return [`a payload whose hasNext is not a boolean: ${preview(payload)}`];
  const errors: unknown[] = Array.isArray(payload['errors']) ? [...payload['errors']] : [];
  for (const entry of [...(Array.isArray(payload['incremental']) ? payload['incremental'] : []), ...(Array.isArray(payload['completed']) ? payload['completed'] : [])]) {
    if (!isRecord(entry)) return [`an incremental or completed entry that is not an object: ${preview(entry)}`];
    if (Array.isArray(entry['errors'])) errors.push(...entry['errors']);
  }
  return errors.flatMap(graphqlErrorProblems);
}

/** A multipart/mixed answer (incremental delivery): JSON parts, the first a result, the last saying hasNext: false, then the closing delimiter. */
function multipartProblems(answer: Answer, type: string): string[] {
  if (answer.status !== 200) return [`a multipart answer with status ${answer.status}`];
  const boundary = /boundary="?([^";]+)"?/.exec(type)?.[1];
  if (boundary === undefined) return [`a multipart answer without a boundary: ${type}`];
  const [, ...parts] = answer.text.split(`\r\n--${boundary}`);
  const closing = parts.pop();
  if (closing === undefined || !closing.startsWith('--')) return answer.open ? [] : [`a multipart answer without its closing delimiter: ${preview(answer.text.slice(-80))}`];
  const payloads = parts.map((part) => part.slice(part.indexOf('\r\n\r\n') + 4));
  const problems = payloads.flatMap((json) => jsonProblems(json, resultOrPayloadProblems));
  const last = payloads.length === 0 ? undefined : (JSON.parse(payloads[payloads.length - 1] as string) as Record<string, unknown>);
  if (last !== undefined && last['hasNext'] !== false) problems.push(`a multipart answer whose last part does not say hasNext: false: ${preview(last)}`);
  return problems;
}

function jsonProblems(text: string, check: (value: unknown) => string[]): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [`text that is not JSON: ${preview(text)}`];
  }
  return check(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

// ---------------------------------------------------------------------------------------------
// Recipes: JSON, documents, bodies, headers
// ---------------------------------------------------------------------------------------------

/** A JSON value, as a recipe: what fast-check prints when a run fails, rather than the megabytes it stands for. */
type JsonRecipe =
  | { readonly kind: 'value'; readonly value: fc.JsonValue }
  /** JSON text no generated value spells: 1e400, -0, lone surrogates, duplicate members. */
  | { readonly kind: 'literal'; readonly text: string }
  | { readonly kind: 'deep'; readonly shape: 'object' | 'array' | 'alternating'; readonly depth: number }
  | { readonly kind: 'wide'; readonly members: number }
  | { readonly kind: 'long'; readonly unit: string; readonly length: number }
  /** A GraphQL document, as a JSON string. */
  | { readonly kind: 'document'; readonly document: DocumentRecipe }
  | { readonly kind: 'object'; readonly members: Members }
  | { readonly kind: 'array'; readonly items: ReadonlyArray<JsonRecipe> };

/** An object's members, in order; a name may come twice. */
type Members = ReadonlyArray<readonly [string, JsonRecipe]>;

function jsonText(recipe: JsonRecipe): string {
  switch (recipe.kind) {
    case 'value':
      return JSON.stringify(recipe.value);
    case 'literal':
      return recipe.text;
    case 'deep':
      return deepText(recipe.shape, recipe.depth);
    case 'wide':
      return `{${Array.from({ length: recipe.members }, (_, index) => `"m${index}":${index}`).join(',')}}`;
    case 'long':
      return JSON.stringify(recipe.unit.repeat(recipe.length));
    case 'document':
      return JSON.stringify(documentText(recipe.document));
    case 'object':
      return `{${recipe.members.map(([name, value]) => `${JSON.stringify(name)}:${jsonText(value)}`).join(',')}}`;
    case 'array':
      return `[${recipe.items.map(jsonText).join(',')}]`;
  }
}

/** JSON nested `depth` levels deep, written as text: JSON.stringify of it would exhaust this process's stack first. */
function deepText(shape: 'object' | 'array' | 'alternating', depth: number): string {
  switch (shape) {
    case 'object':
      return `${'{"a":'.repeat(depth)}0${'}'.repeat(depth)}`;
    case 'array':
      return `${'['.repeat(depth)}0${']'.repeat(depth)}`;
    case 'alternating':
      return `${'{"a":['.repeat(depth)}0${']}'.repeat(depth)}`;
  }
}

/** Sizes from tiny to past every limit: most small, some around the limits, a few huge. */
function size(huge: number): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: 1, max: 40 }) },
    { weight: 2, arbitrary: fc.integer({ min: 41, max: 5000 }) },
    { weight: 1, arbitrary: fc.integer({ min: 5001, max: huge }) },
  );
}

/** Depths of nested JSON: past what a recursive walk over it survives (some thousands of levels) as often as not. */
const depths = fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 101, max: 3000 }), fc.integer({ min: 3001, max: 200_000 }), fc.integer({ min: 3001, max: 20_000 }));

const JSON_LITERALS = [
  '1e400', '-1e400', '-0', '1e-400', '123456789012345678901234567890', '2147483648', '-2147483649', '9007199254740993', '0.1',
  '"\\ud800"', '"\\udfff\\ud800"', '"\\u0000"', '"\\u2028"', '{"a":1,"a":{"b":2}}', '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}', '[]', '{}', '""', '[[],[[]],{}]', 'null', 'true',
];
const LONG_UNITS = ['x', 'é', '😀', '\u0000', '"', '\\', '\ud800', '\u2028'];

const deepJson: fc.Arbitrary<JsonRecipe> = fc
  .tuple(fc.constantFrom('object' as const, 'array' as const, 'alternating' as const), depths)
  .map(([shape, depth]): JsonRecipe => ({ kind: 'deep', shape, depth }));
/** Deep JSON that is an object at the top: what a member that must be an object accepts. */
const deepObject: fc.Arbitrary<JsonRecipe> = fc
  .tuple(fc.constantFrom('object' as const, 'alternating' as const), depths)
  .map(([shape, depth]): JsonRecipe => ({ kind: 'deep', shape, depth }));

/** Any JSON value: generated, literal, deep, wide or long. */
const jsonLeaf: fc.Arbitrary<JsonRecipe> = fc.oneof(
  { weight: 8, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value): JsonRecipe => ({ kind: 'value', value })) },
  { weight: 2, arbitrary: fc.constantFrom(...JSON_LITERALS).map((text): JsonRecipe => ({ kind: 'literal', text })) },
  { weight: 3, arbitrary: deepJson },
  { weight: 1, arbitrary: size(60_000).map((members): JsonRecipe => ({ kind: 'wide', members })) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...LONG_UNITS), size(400_000)).map(([unit, length]): JsonRecipe => ({ kind: 'long', unit, length })) },
);

const value = (json: fc.JsonValue): JsonRecipe => ({ kind: 'value', value: json });
const object = (members: Members): JsonRecipe => ({ kind: 'object', members });

/** A document: text (generated, mutated, or picked), or a pathological shape of size n. */
type DocumentRecipe = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'shape'; readonly shape: ShapeName; readonly n: number };

function documentText(recipe: DocumentRecipe): string {
  return recipe.kind === 'text' ? recipe.text : SHAPES[recipe.shape](recipe.n);
}

function times(n: number, each: (index: number) => string, separator = ' '): string {
  return Array.from({ length: n }, (_, index) => each(index)).join(separator);
}

/** Documents built to hit a limit, or a recursion, at size n. */
const SHAPES = {
  nestedFields: (n: number) => `{ ${'authors { books { '.repeat(n)}id${' } }'.repeat(n)} }`,
  nestedBraces: (n: number) => `${'{a'.repeat(n)}${'}'.repeat(n)}`,
  wide: (n: number) => `{ ${'__typename '.repeat(n)}}`,
  aliases: (n: number) => `{ ${times(n, (i) => `a${i}: __typename`)} }`,
  distinctFields: (n: number) => `{ ${times(n, (i) => `b${i}: book(id: "b${i}") { title reviews { stars } }`)} }`,
  directives: (n: number) => `{ __typename ${'@include(if: true) '.repeat(n)}}`,
  variableDirectives: (n: number) => `query ($s: Boolean!) { ${times(n, (i) => `a${i}: __typename @skip(if: $s)`)} }`,
  fragmentCycle: (n: number) => `{ ...F0 } ${times(n, (i) => `fragment F${i} on Query { ...F${(i + 1) % n} }`)}`,
  fragmentChain: (n: number) => `{ ...F0 } ${times(n, (i) => `fragment F${i} on Query { ${i === n - 1 ? '__typename' : `...F${i + 1}`} }`)}`,
  fragmentFan: (n: number) =>
    `{ ...F0 } ${times(n, (i) => `fragment F${i} on Query { ${i === n - 1 ? 'books { items { title } }' : `a${i}: __typename ...F${i + 1} ...F${i + 1}`} }`)}`,
  longString: (n: number) => `{ search(text: "${'x'.repeat(n)}") { __typename } }`,
  longBlockString: (n: number) => `{ search(text: """${'é\n'.repeat(n)}""") { __typename } }`,
  deepList: (n: number) => `{ search(text: ${'['.repeat(n)}"x"${']'.repeat(n)}) { __typename } }`,
  deepInput: (n: number) => `mutation { addReview(review: ${'{ bookId: "b1", stars: 3, text: '.repeat(n)}"x"${' }'.repeat(n)}) { id } }`,
  deepListType: (n: number) => `query ($x: ${'['.repeat(n)}String${']'.repeat(n)}) { search(text: $x) { __typename } }`,
  operations: (n: number) => times(n, (i) => `query Q${i} { __typename }`),
  variables: (n: number) => `query (${times(n, (i) => `$v${i}: Int = ${i}`, ', ')}) { __typename }`,
  subscriptionFields: (n: number) => `subscription { ${times(n, (i) => `r${i}: reviewAdded { id }`)} }`,
  subscriptionConditions: (n: number) => `subscription ($s: Boolean!) { ${times(n, (i) => `... @include(if: $s) { r${i}: reviewAdded { id } }`)} }`,
  nestedConditions: (n: number) => `subscription ($s: Boolean = true) { ${'... @include(if: $s) { '.repeat(n)}reviewAdded { id }${' }'.repeat(n)} }`,
  comment: (n: number) => `{ __typename } #${'x'.repeat(n)}`,
  commas: (n: number) => `{ __typename${','.repeat(n)} }`,
  badCharacters: (n: number) => `{ ${'\u00e9\u0000'.repeat(n)} }`,
  bigNumber: (n: number) => `{ books(limit: ${'9'.repeat(n)}) { total } }`,
} satisfies Record<string, (n: number) => string>;

type ShapeName = keyof typeof SHAPES;
const SHAPE_NAMES = Object.keys(SHAPES) as ShapeName[];
const shapedDocument = fc.tuple(fc.constantFrom(...SHAPE_NAMES), size(60_000)).map(([shape, n]): DocumentRecipe => ({ kind: 'shape', shape, n }));

// ---------------------------------------------------------------------------------------------
// Generated documents over the demo schema
// ---------------------------------------------------------------------------------------------

/** The demo's types as the generator sees them: each field and the type it selects (null: a leaf). */
const DEMO_FIELDS: Readonly<Record<string, Readonly<Record<string, string | null>>>> = {
  Query: {
    authors: 'Author', books: 'BookPage', booksConnection: 'BookConnection', author: 'Author', book: 'Book', review: 'Review', node: 'Node',
    search: 'SearchResult', me: 'Viewer', stats: 'LibraryStats', webhookEndpoints: 'WebhookEndpoint', __typename: null, __schema: '__Schema', __type: '__Type',
  },
  Mutation: { addReview: 'Review', updateReview: 'Review', deleteReview: null, registerWebhook: 'WebhookEndpoint', __typename: null },
  Subscription: { reviewAdded: 'Review' },
  Author: { id: null, name: null, born: null, email: null, books: 'Book' },
  Book: { id: null, title: null, genre: null, published: null, averageStars: null, author: 'Author', reviews: 'Review' },
  Review: { id: null, bookId: null, stars: null, text: null, book: 'Book' },
  BookPage: { items: 'Book', total: null },
  BookConnection: { edges: 'BookEdge', pageInfo: 'PageInfo', totalCount: null },
  BookEdge: { cursor: null, node: 'Book' },
  PageInfo: { hasNextPage: null, endCursor: null },
  Node: { id: null, __typename: null },
  SearchResult: { __typename: null },
  Viewer: { id: null, kind: null, roles: null, scopes: null, mfa: null },
  LibraryStats: { authors: null, books: null, reviews: null, dataRoundTrips: null },
  WebhookEndpoint: { id: null, url: null, secret: null, deliveries: 'WebhookDelivery' },
  WebhookDelivery: { id: null, status: null },
  __Schema: { types: '__Type', queryType: '__Type', subscriptionType: '__Type' },
  __Type: { name: null, kind: null, fields: '__Field', ofType: '__Type' },
  __Field: { name: null, type: '__Type' },
};
const LEAF = { __typename: null };

const ID_ARGUMENTS = ['id: "a1"', 'id: "b1"', 'id: "r1"', 'id: $id', 'id: 1', 'id: null', 'id: $b'];
const ARGUMENTS: Readonly<Record<string, ReadonlyArray<string>>> = {
  books: ['limit: $n', 'limit: 1000', 'limit: -1', 'genre: FICTION', 'genre: $g', 'sort: TITLE', 'offset: $n', 'genre: "FICTION"'],
  booksConnection: ['first: 2', 'first: $n', 'after: "garbage"', 'after: $c', 'first: 101'],
  author: ID_ARGUMENTS,
  book: ID_ARGUMENTS,
  review: ID_ARGUMENTS,
  node: ID_ARGUMENTS,
  deleteReview: ID_ARGUMENTS,
  updateReview: [...ID_ARGUMENTS, 'stars: $n', 'stars: 9', 'text: $text'],
  search: ['text: "a"', 'text: $text', 'text: 3', 'text: null'],
  addReview: ['review: { bookId: "b1", stars: 3 }', 'review: $r', 'review: { bookId: $id, stars: $n, text: $text }', 'review: { bookId: "b9", stars: 9 }', 'review: { stars: 1 }'],
  registerWebhook: ['url: "http://127.0.0.1:1/hook"', 'events: ["review.created"]', 'url: $text', 'events: $x'],
  reviewAdded: ['bookId: "b1"', 'bookId: $id', 'bookId: $b', 'bookId: null', 'bookId: 3', 'bookId: $s'],
  deliveries: ['limit: $n', 'limit: 1', 'limit: -5'],
  __type: ['name: "Book"', 'name: $text'],
};
const JUNK_ARGUMENTS = ['x: 1', 'if: true', 'id: "b1"', 'first: $n'];
/** Directives: the valid ones (first) several times as likely as the others. */
const VALID_DIRECTIVES = ['@skip(if: true)', '@skip(if: false)', '@include(if: $s)', '@skip(if: $s)', '@include(if: $t)', '@skip(if: $s) @include(if: $t)'];
const DIRECTIVES = [
  ...VALID_DIRECTIVES, ...VALID_DIRECTIVES, ...VALID_DIRECTIVES,
  '@include(if: $missing)', '@include(if: "yes")', '@include', '@deprecated', '@defer', '@stream(initialCount: 1)', '@unknown', '@auth(roles: ["admin"])', '@skip(if: $n)',
];
/** The type each variable a generated document uses is declared with. */
const VARIABLE_TYPES: Readonly<Record<string, string>> = {
  s: 'Boolean!', t: 'Boolean = true', id: 'ID!', b: 'ID', n: 'Int', text: 'String', r: 'ReviewInput!', g: 'Genre', c: 'String', x: '[String!]', missing: 'Boolean',
};
/** Declarations a document may have besides those of the variables it uses: unused, repeated or wrong. */
const STRAY_DEFINITIONS = ['$s: Boolean', '$id: ID', '$d: Date', '$x: [[String!]!]', '$bad: Unknown', '$s: Review', '$n: Int = "x"', '$u: Boolean! @deprecated'];
const FRAGMENT_NAMES = ['F0', 'F1', 'F2'];
const FRAGMENT_TYPES = ['Query', 'Subscription', 'Mutation', 'Book', 'Author', 'Review', 'Node', 'SearchResult', 'String', 'Nope'];
const OPERATION_NAMES = ['Q', 'S', 'M', 'Q0', 'Q1'];

/**
 * A selection, as choices the renderer reads against the parent type: `form` 0 an unknown
 * field, 1 an inline fragment on some type, 2 one with directives only, 3 a fragment spread,
 * 4 a field that selects into a leaf, otherwise (most often) a field of the type; `pick` which one.
 */
interface SelectionTree {
  readonly form: number;
  readonly pick: number;
  readonly alias: boolean;
  readonly args: ReadonlyArray<number>;
  readonly directives: ReadonlyArray<number>;
  readonly children: ReadonlyArray<SelectionTree>;
}

/** Mostly none, sometimes one or two. */
const fewIndexes = fc.oneof({ weight: 3, arbitrary: fc.constant<number[]>([]) }, { weight: 1, arbitrary: fc.array(fc.nat(), { minLength: 1, maxLength: 2 }) });

const { selection } = fc.letrec<{ selection: SelectionTree }>((tie) => ({
  selection: fc.record({
    form: fc.nat({ max: 30 }),
    pick: fc.nat(),
    alias: fc.boolean(),
    args: fewIndexes,
    directives: fewIndexes,
    children: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant([]), fc.array(tie('selection'), { minLength: 1, maxLength: 3 })),
  }),
}));

function pick<T>(items: ReadonlyArray<T>, index: number): T {
  return items[index % items.length] as T;
}

function selectionSetText(trees: ReadonlyArray<SelectionTree>, type: string): string {
  return `{ ${trees.length === 0 ? '__typename' : trees.map((tree) => selectionText(tree, type)).join(' ')} }`;
}

function selectionText(tree: SelectionTree, type: string): string {
  const directives = tree.directives.map((index) => pick(DIRECTIVES, index)).join(' ');
  switch (tree.form) {
    case 0:
      return `nope${tree.pick % 3} ${directives}${tree.children.length > 0 ? ` ${selectionSetText(tree.children, type)}` : ''}`;
    case 1: {
      const on = pick(FRAGMENT_TYPES, tree.pick);
      return `... on ${on} ${directives} ${selectionSetText(tree.children, on)}`;
    }
    case 2:
      return `... ${directives} ${selectionSetText(tree.children, type)}`;
    case 3:
      return `...${pick(FRAGMENT_NAMES, tree.pick)} ${directives}`;
    default:
      return fieldText(tree, type, directives);
  }
}

function fieldText(tree: SelectionTree, type: string, directives: string): string {
  const fields = DEMO_FIELDS[type] ?? LEAF;
  const name = pick(Object.keys(fields), tree.pick);
  const selects = fields[name] ?? null;
  const alias = tree.alias ? `a${tree.pick % 8}: ` : '';
  const args = tree.args.length === 0 ? '' : `(${tree.args.map((index) => pick(ARGUMENTS[name] ?? JUNK_ARGUMENTS, index)).join(', ')})`;
  let subselection = '';
  if (selects !== null) subselection = ` ${selectionSetText(tree.children, selects)}`;
  else if (tree.form === 4 && tree.children.length > 0) subselection = ` ${selectionSetText(tree.children, 'Query')}`;
  return `${alias}${name}${args} ${directives}${subselection}`;
}

type OperationKind = 'query' | 'mutation' | 'subscription' | 'shorthand';
const ROOT_TYPES: Readonly<Record<OperationKind, string>> = { query: 'Query', shorthand: 'Query', mutation: 'Mutation', subscription: 'Subscription' };

interface OperationRecipe {
  readonly kind: OperationKind;
  readonly name: number | null;
  /** Declarations besides those of the variables the document uses (STRAY_DEFINITIONS). */
  readonly strays: ReadonlyArray<number>;
  readonly directives: ReadonlyArray<number>;
  readonly selections: ReadonlyArray<SelectionTree>;
  /** A subscription keeps only its first root field unless this is set. */
  readonly manyRoots: boolean;
}

interface FragmentRecipe {
  readonly name: number;
  readonly on: number;
  readonly directives: ReadonlyArray<number>;
  readonly selections: ReadonlyArray<SelectionTree>;
}

/** An operation, declaring every variable the document uses (`fragments`: the text of its fragments, which may use some too). */
function operationText(operation: OperationRecipe, fragments: string): string {
  const roots = operation.kind === 'subscription' && !operation.manyRoots ? operation.selections.slice(0, 1) : operation.selections;
  const selections = selectionSetText(roots, ROOT_TYPES[operation.kind]);
  const directives = operation.directives.map((index) => pick(DIRECTIVES, index)).join(' ');
  const used = new Set(`${directives} ${selections} ${fragments}`.match(/\$\w+/g) ?? []);
  const definitions = [...[...used].map((name) => `${name}: ${VARIABLE_TYPES[name.slice(1)] ?? 'String'}`), ...operation.strays.map((index) => pick(STRAY_DEFINITIONS, index))];
  if (operation.kind === 'shorthand' && definitions.length === 0 && directives === '') return selections;
  const kind = operation.kind === 'shorthand' ? 'query' : operation.kind;
  const name = operation.name === null ? '' : ` ${pick(OPERATION_NAMES, operation.name)}`;
  return `${kind}${name}${definitions.length === 0 ? '' : `(${definitions.join(', ')})`} ${directives} ${selections}`;
}

function fragmentText(fragment: FragmentRecipe): string {
  const on = pick(FRAGMENT_TYPES, fragment.on);
  const directives = fragment.directives.map((index) => pick(DIRECTIVES, index)).join(' ');
  return `fragment ${pick(FRAGMENT_NAMES, fragment.name)} on ${on} ${directives} ${selectionSetText(fragment.selections, on)}`;
}

/** Documents of one or two operations of these kinds, and a few fragments (which may spread each other in a cycle). */
function grammarDocument(kinds: fc.Arbitrary<OperationKind>): fc.Arbitrary<string> {
  const operation: fc.Arbitrary<OperationRecipe> = fc.record({
    kind: kinds,
    name: fc.option(fc.nat(), { nil: null }),
    strays: fewIndexes,
    directives: fewIndexes,
    selections: fc.array(selection, { minLength: 1, maxLength: 3 }),
    manyRoots: fc.nat({ max: 5 }).map((n) => n === 0),
  });
  const fragment: fc.Arbitrary<FragmentRecipe> = fc.record({ name: fc.nat(), on: fc.nat(), directives: fewIndexes, selections: fc.array(selection, { maxLength: 3 }) });
  return fc
    .record({
      operations: fc.oneof({ weight: 4, arbitrary: fc.array(operation, { minLength: 1, maxLength: 1 }) }, { weight: 1, arbitrary: fc.array(operation, { minLength: 2, maxLength: 2 }) }),
      fragments: fc.oneof({ weight: 2, arbitrary: fc.constant<FragmentRecipe[]>([]) }, { weight: 1, arbitrary: fc.array(fragment, { minLength: 1, maxLength: 3 }) }),
    })
    .map(({ operations, fragments }) => {
      const fragmentTexts = fragments.map(fragmentText).join('\n');
      return [...operations.map((operation) => operationText(operation, fragmentTexts)), fragmentTexts].join('\n');
    });
}

const KNOWN_QUERIES = [
  '{ __typename }',
  '{ books { total items { id title genre published author { name born } } } }',
  'query Q($id: ID!) { book(id: $id) { title reviews { stars text } averageStars } }',
  '{ search(text: "a") { ... on Book { title } ... on Author { name email } } }',
  'mutation M($r: ReviewInput!) { addReview(review: $r) { id stars } }',
  'mutation { updateReview(id: "r1", stars: 2) { id } deleteReview(id: "r1") }',
  '{ me { id kind roles scopes mfa } stats { books dataRoundTrips } }',
  '{ webhookEndpoints { id deliveries { id } } }',
  '{ __schema { types { name fields { name } } } }',
  '{ booksConnection(first: 2, after: "YWZ0ZXI6MA") { edges { cursor node { title } } pageInfo { endCursor hasNextPage } } }',
  'query Q { __typename } query S { __typename }',
  '{ node(id: "b1") { id ... on Book { title } } }',
  '{ ...F } fragment F on Query { ...F }',
];

const KNOWN_SUBSCRIPTIONS = [
  'subscription { reviewAdded { id } }',
  'subscription S($b: ID) { reviewAdded(bookId: $b) { id stars text book { title author { name } } } }',
  'subscription ($s: Boolean!) { reviewAdded @skip(if: $s) { id } }',
  'subscription ($s: Boolean!) { reviewAdded @include(if: $s) { id } }',
  'subscription ($s: Boolean!) { ... @include(if: $s) { reviewAdded { id } } }',
  'subscription ($s: Boolean!) { reviewAdded { id text @include(if: $s) book @skip(if: $s) { title } } }',
  'subscription { ...F } fragment F on Subscription { reviewAdded { id } }',
  'subscription { ...F @skip(if: true) } fragment F on Subscription { reviewAdded { id } }',
  'subscription { __typename }',
  'subscription { reviewAdded { id } reviewAdded { stars } }',
  'subscription { a: reviewAdded { id } b: reviewAdded { id } }',
  'subscription { reviewAdded { id } } subscription S { reviewAdded { stars } }',
  'subscription { reviewAdded { book { reviews { book { reviews { id } } } } } }',
  'subscription { reviewAdded(bookId: "b1") { ... on Review { id } ... on Book { title } } }',
  'subscription { __schema { types { name } } }',
];

const TOKENS = [
  '{', '}', '(', ')', ':', '...', '$s', '$id', '!', '[', ']', '@skip(if: $s)', '@include(if: true)', 'on', 'Book', 'Query', 'query', 'mutation',
  'subscription', 'fragment', 'F0', 'reviewAdded', 'books', 'items', 'title', 'id', 'author', '__typename', 'addReview', 'ID', 'Boolean',
  '5', '"b1"', '"""', '#', '\n', '\u00e9', '\u0000', '\ufeff', ',', '=', '|', '&',
];

interface Edit {
  readonly at: number;
  readonly remove: number;
  readonly insert: string;
}

const edit: fc.Arbitrary<Edit> = fc.record({ at: fc.nat(), remove: fc.nat({ max: 4 }), insert: fc.constantFrom('', ...TOKENS) });

function edited(text: string, edits: ReadonlyArray<Edit>): string {
  return edits.reduce((current, { at, remove, insert }) => {
    const index = at % (current.length + 1);
    return current.slice(0, index) + insert + current.slice(index + remove);
  }, text);
}

/** Documents: generated ones of these kinds, known ones, either mutated, token soup, random text, or a pathological shape. */
function documents(kinds: fc.Arbitrary<OperationKind>, known: ReadonlyArray<string>): fc.Arbitrary<DocumentRecipe> {
  const generated = grammarDocument(kinds);
  const text = fc.oneof(
    { weight: 6, arbitrary: generated },
    { weight: 3, arbitrary: fc.constantFrom(...known) },
    { weight: 2, arbitrary: fc.tuple(fc.oneof(generated, fc.constantFrom(...known)), fc.array(edit, { minLength: 1, maxLength: 4 })).map(([base, edits]) => edited(base, edits)) },
    { weight: 1, arbitrary: fc.array(fc.constantFrom(...TOKENS), { maxLength: 30 }).map((tokens) => tokens.join(' ')) },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  );
  return fc.oneof({ weight: 6, arbitrary: text.map((each): DocumentRecipe => ({ kind: 'text', text: each })) }, { weight: 1, arbitrary: shapedDocument });
}

const anyOperation = fc.constantFrom<OperationKind>('query', 'query', 'shorthand', 'shorthand', 'mutation', 'subscription');
const mostlySubscriptions = fc.constantFrom<OperationKind>('subscription', 'subscription', 'subscription', 'query', 'shorthand');
const queryDocuments = documents(anyOperation, [...KNOWN_QUERIES, ...KNOWN_SUBSCRIPTIONS.slice(0, 3)]);
const subscriptionDocuments = documents(mostlySubscriptions, [...KNOWN_SUBSCRIPTIONS, ...KNOWN_QUERIES.slice(0, 3)]);

// ---------------------------------------------------------------------------------------------
// GraphQL requests: query, variables, operationName, extensions
// ---------------------------------------------------------------------------------------------

const VARIABLE_NAMES = ['s', 's', 't', 'id', 'id', 'b', 'n', 'text', 'r', 'g', 'c', 'x', 'missing', 'v0', '__proto__', 'constructor', ''];
const PLAUSIBLE_VALUES: ReadonlyArray<fc.JsonValue> = [
  true, false, 'b1', 'r1', 'a1', 'b9', 3, 0, -1, 101, 2147483647, 1.5, '2024-01-31', 'not a date', 'FICTION', 'fiction', 'YWZ0ZXI6MQ', '', null,
  { bookId: 'b1', stars: 3 }, { bookId: 'b1', stars: 3, text: null, extra: 1 }, { bookId: 'b1' }, [['a']], [null], [[null]], { s: true },
];

const variableValue = fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...PLAUSIBLE_VALUES).map(value) }, { weight: 2, arbitrary: jsonLeaf }, { weight: 1, arbitrary: deepJson });
const variables = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.tuple(fc.constantFrom(...VARIABLE_NAMES), variableValue), { maxLength: 4 }).map(object) },
  { weight: 1, arbitrary: jsonLeaf },
);

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const HASHES = [sha256('{ __typename }'), sha256('subscription { reviewAdded { id } }'), sha256('{ __typename }').toUpperCase(), 'x', '0'.repeat(64), 'g'.repeat(64), ''];
const extensions = fc.oneof(
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.constantFrom<fc.JsonValue>(1, 2, '1', null), fc.constantFrom(...HASHES))
      .map(([version, sha256Hash]) => object([['persistedQuery', value({ version, sha256Hash })]])),
  },
  { weight: 1, arbitrary: fc.constantFrom<fc.JsonValue>(true, false, 'yes', 1, {}, null).map((trace) => object([['trace', value(trace)]])) },
  { weight: 2, arbitrary: jsonLeaf },
  { weight: 1, arbitrary: deepJson.map((deep) => object([['persistedQuery', deep], ['trace', deep]])) },
);
const operationName = fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...OPERATION_NAMES, '', 'nope').map(value) }, { weight: 1, arbitrary: jsonLeaf });
const strayMember = fc.tuple(fc.constantFrom('query', 'variables', 'documentId', 'doc_id', 'id', '__proto__', 'operationName'), jsonLeaf);

/** Null four times in five. */
function rarely<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | null> {
  return fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
}

/** The members of a GraphQL request: each there or not, of the right type mostly, and a stray one now and then. */
function requestMembers(documentRecipes: fc.Arbitrary<DocumentRecipe>): fc.Arbitrary<Members> {
  const query = fc.oneof({ weight: 12, arbitrary: documentRecipes.map((document): JsonRecipe => ({ kind: 'document', document })) }, { weight: 1, arbitrary: jsonLeaf });
  return fc
    .record({
      query: fc.option(query, { freq: 12, nil: null }),
      variables: fc.option(variables, { freq: 2, nil: null }),
      operationName: rarely(operationName),
      extensions: rarely(extensions),
      stray: fc.oneof({ weight: 6, arbitrary: fc.constant<Array<[string, JsonRecipe]>>([]) }, { weight: 1, arbitrary: fc.array(strayMember, { minLength: 1, maxLength: 2 }) }),
    })
    .map(({ stray, ...members }) => [...Object.entries(members).flatMap(([name, recipe]) => (recipe === null ? [] : [[name, recipe] as const])), ...stray]);
}

/** A GET's query string: the members as parameters (a document as its text, anything else as JSON), and some garbage. */
function queryString(members: Members, raw: ReadonlyArray<string>): string {
  const params = members.map(([name, recipe]) => `${encodeURIComponent(name)}=${encodeURIComponent(recipe.kind === 'document' ? documentText(recipe.document) : jsonText(recipe))}`);
  return [...params, ...raw].join('&');
}

const RAW_PARAMETERS = ['%', '%zz', '%00', 'query', '=', '', 'query=%7B', 'query=%C0%AF', 'query=%ED%A0%80', 'query=%FF', 'variables=%7B%22', '+', 'query[]=x', 'a=%E9'];
const rawParameters = fc.oneof({ weight: 4, arbitrary: fc.constant<string[]>([]) }, { weight: 1, arbitrary: fc.array(fc.constantFrom(...RAW_PARAMETERS), { minLength: 1, maxLength: 3 }) });

// ---------------------------------------------------------------------------------------------
// Bodies and headers
// ---------------------------------------------------------------------------------------------

type BodyRecipe =
  | { readonly kind: 'json'; readonly json: JsonRecipe }
  | { readonly kind: 'bytes'; readonly bytes: ReadonlyArray<number> }
  /** The JSON with bytes that are not UTF-8 spliced in at `at`. */
  | { readonly kind: 'notUtf8'; readonly json: JsonRecipe; readonly at: number; readonly bytes: ReadonlyArray<number> }
  /** The JSON cut short. */
  | { readonly kind: 'cut'; readonly json: JsonRecipe; readonly keep: number }
  | { readonly kind: 'encoded'; readonly json: JsonRecipe; readonly encoding: 'utf16le' | 'latin1' | 'bom' }
  | { readonly kind: 'empty' };

function bodyBytes(recipe: BodyRecipe): Buffer {
  switch (recipe.kind) {
    case 'json':
      return Buffer.from(jsonText(recipe.json));
    case 'bytes':
      return Buffer.from(recipe.bytes);
    case 'notUtf8': {
      const text = Buffer.from(jsonText(recipe.json));
      const at = recipe.at % (text.length + 1);
      return Buffer.concat([text.subarray(0, at), Buffer.from(recipe.bytes), text.subarray(at)]);
    }
    case 'cut': {
      const text = Buffer.from(jsonText(recipe.json));
      return text.subarray(0, recipe.keep % (text.length + 1));
    }
    case 'encoded': {
      const text = jsonText(recipe.json);
      if (recipe.encoding === 'bom') return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
      return Buffer.from(text, recipe.encoding);
    }
    case 'empty':
      return Buffer.alloc(0);
  }
}

const NOT_UTF8 = [[0xff], [0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xfe, 0xff]];

/** Bodies around a JSON value: the value itself mostly, else its bytes broken one way or another. */
function bodies(json: fc.Arbitrary<JsonRecipe>): fc.Arbitrary<BodyRecipe> {
  return fc.oneof(
    { weight: 30, arbitrary: json.map((each): BodyRecipe => ({ kind: 'json', json: each })) },
    { weight: 1, arbitrary: jsonLeaf.map((each): BodyRecipe => ({ kind: 'json', json: each })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes): BodyRecipe => ({ kind: 'bytes', bytes: [...bytes] })) },
    { weight: 1, arbitrary: fc.tuple(json, fc.nat(), fc.constantFrom(...NOT_UTF8)).map(([each, at, bytes]): BodyRecipe => ({ kind: 'notUtf8', json: each, at, bytes })) },
    { weight: 1, arbitrary: fc.tuple(json, fc.nat()).map(([each, keep]): BodyRecipe => ({ kind: 'cut', json: each, keep })) },
    {
      weight: 1,
      arbitrary: fc.tuple(json, fc.constantFrom('utf16le' as const, 'latin1' as const, 'bom' as const)).map(([each, encoding]): BodyRecipe => ({ kind: 'encoded', json: each, encoding })),
    },
    { weight: 1, arbitrary: fc.constant<BodyRecipe>({ kind: 'empty' }) },
  );
}

/** A value, or a long one: the prefix, then `length` times `x` (printed as the recipe, sent as the text). */
type Text = string | { readonly prefix: string; readonly length: number };
type HeaderRecipe = readonly [name: string, value: Text];

function textOf(text: Text): string {
  return typeof text === 'string' ? text : text.prefix + 'x'.repeat(text.length);
}

const CONTENT_TYPES = [
  'application/json; charset=utf-8', 'application/json; charset=UTF-8', 'application/json;charset=latin1', 'application/json; charset=utf-16',
  'application/graphql-response+json', 'application/graphql', 'text/plain', 'text/plain; charset=utf-8', 'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x', 'multipart/mixed', 'application/JSON', ' application/json ', '', ';', 'application/json; boundary',
  '*/*', 'application/json, text/plain', 'application/vnd.api+json', 'application/json; charset="utf-8"', 'application/json; charset=utf8; charset=latin1',
];
const ACCEPTS = [
  'application/json', 'application/graphql-response+json', 'application/graphql-response+json, application/json;q=0.9', 'text/event-stream',
  'text/event-stream, application/json', 'multipart/mixed; deferSpec=20220824, application/json', 'multipart/mixed', '*/*', '*/*;q=0',
  'application/*', 'text/html', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/json;q=0',
  'application/json; charset=latin1', '', ',', ';q=', 'application/graphql-response+json;q=abc', 'image/png', 'text/event-stream;q=0.1, application/json;q=0.2',
];
const AUTHORIZATIONS = [
  'Bearer', 'Bearer ', 'Bearer x', 'Bearer a.b.c', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', 'Basic Zm9vOmJhcg==', 'Basic', 'ApiKey demo-admin',
  'bearer demo-admin', 'Token x', '', ' ', 'Bearer \u00ff\u00fe', 'Bearer eyJ.eyJ.sig', 'Digest username="x"', 'Bearer  two  spaces',
];
const API_KEYS = ['demo-reader', 'demo-editor', 'demo-admin', 'not-a-key', '', ' demo-admin', 'DEMO-ADMIN', 'demo-admin\u00e9', 'demo-admin, demo-reader'];
const ORIGINS = [APP_ORIGIN, 'HTTPS://APP.EXAMPLE', 'https://evil.example', 'null', 'http://127.0.0.1', 'https://app.example.evil', 'https://app.example:443', '*', '', 'garbage'];
const OTHER_HEADERS: ReadonlyArray<HeaderRecipe> = [
  ['if-none-match', '*'], ['if-none-match', '"x"'], ['if-none-match', 'W/"x", "y"'], ['if-match', '*'], ['if-match', '"stale"'], ['if-match', ''],
  ['api-version', 'v1'], ['api-version', 'v2'], ['api-version', '1'], ['api-version', ''], ['accept-version', 'v0'], ['x-forwarded-for', '1.2.3.4, garbage'],
  ['x-request-id', '\u00ff'], ['content-encoding', 'gzip'], ['accept-encoding', 'br'], ['cookie', 'session=1'], ['expect', '100-continue'],
  ['access-control-request-method', 'DELETE'], ['access-control-request-headers', 'x-api-key'], ['range', 'bytes=0-1'], ['x-graphql-csrf', ''],
  ['constructor', 'x'], ['__proto__', 'x'], ['connection', 'upgrade'], ['upgrade', 'websocket'],
];
const OTHER_NAMES = ['if-none-match', 'if-match', 'api-version', 'accept-version', 'accept', 'content-type', 'x-api-key', 'authorization', 'origin', 'x-forwarded-for'];

/** Header values node's client will send: tab, and bytes 0x20 to 0xff but DEL (sent as Latin-1). */
const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0xff }).filter((code) => code !== 0x7f).map((code) => String.fromCharCode(code)), maxLength: 30 });

const credentials: fc.Arbitrary<HeaderRecipe[]> = fc.oneof(
  fc.constantFrom(...AUTHORIZATIONS).map((text): HeaderRecipe[] => [['authorization', text]]),
  fc.constantFrom(...API_KEYS).map((text): HeaderRecipe[] => [['x-api-key', text]]),
  fc.tuple(fc.constantFrom('authorization', 'x-api-key'), size(100_000)).map(([name, length]): HeaderRecipe[] => [[name, { prefix: name === 'authorization' ? 'Bearer ' : '', length }]]),
  fc.tuple(fc.constantFrom('authorization', 'x-api-key'), fc.constantFrom(...API_KEYS)).map(([name, text]): HeaderRecipe[] => [[name, text], [name, text]]),
  fc.constantFrom(...API_KEYS).map((text): HeaderRecipe[] => [['authorization', 'Bearer x'], ['x-api-key', text]]),
);

const demoKeys = fc.constantFrom('demo-reader', 'demo-editor', 'demo-admin').map((key): HeaderRecipe[] => [['x-api-key', key]]);

/**
 * Headers that pass the HTTP checks mostly (Content-Type application/json, the CSRF header, no
 * credential or a demo key), and now and then do not: a strange Content-Type, Accept, credential
 * or Origin, a header given twice, others.
 */
function headers(accepts: fc.Arbitrary<string>): fc.Arbitrary<HeaderRecipe[]> {
  const none = <T>() => fc.constant<T | null>(null);
  return fc
    .record({
      contentType: fc.oneof({ weight: 16, arbitrary: fc.constant<string | null>('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) }, { weight: 1, arbitrary: none<string>() }),
      accept: fc.oneof({ weight: 2, arbitrary: none<string>() }, { weight: 3, arbitrary: accepts }),
      csrf: fc.constantFrom(true, true, true, false),
      credentials: fc.oneof({ weight: 8, arbitrary: none<HeaderRecipe[]>() }, { weight: 2, arbitrary: demoKeys }, { weight: 1, arbitrary: credentials }),
      origin: fc.oneof({ weight: 4, arbitrary: none<string>() }, { weight: 1, arbitrary: fc.constantFrom(...ORIGINS) }),
      others: fc.oneof(
        { weight: 3, arbitrary: fc.constant<HeaderRecipe[]>([]) },
        { weight: 1, arbitrary: fc.array(fc.oneof(fc.constantFrom(...OTHER_HEADERS), fc.tuple(fc.constantFrom(...OTHER_NAMES), headerText)), { minLength: 1, maxLength: 2 }) },
      ),
    })
    .map(({ contentType, accept, csrf, credentials: sent, origin, others }) => [
      ...(contentType === null ? [] : [['content-type', contentType] as const]),
      ...(accept === null ? [] : [['accept', accept] as const]),
      ...(csrf ? [['x-graphql-csrf', '1'] as const] : []),
      ...(sent ?? []),
      ...(origin === null ? [] : [['origin', origin] as const]),
      ...others,
    ]);
}

/** Accept headers: the ones the endpoint serves mostly, any of ACCEPTS now and then. */
const endpointAccepts = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('application/json', 'application/graphql-response+json', '*/*') },
  { weight: 1, arbitrary: fc.constantFrom(...ACCEPTS) },
);

function headerPairs(recipes: ReadonlyArray<HeaderRecipe>): Array<readonly [string, string]> {
  return recipes.map(([name, text]) => [name, textOf(text)] as const);
}

// ---------------------------------------------------------------------------------------------
// HTTP: POST and GET /graphql
// ---------------------------------------------------------------------------------------------

/** A request to the endpoint: a POST with a body, a GET with a query string, or another method. */
type EndpointRecipe =
  | { readonly kind: 'post'; readonly path: string; readonly body: BodyRecipe; readonly headers: ReadonlyArray<HeaderRecipe> }
  | { readonly kind: 'get'; readonly path: string; readonly members: Members; readonly raw: ReadonlyArray<string>; readonly headers: ReadonlyArray<HeaderRecipe> }
  | { readonly kind: 'other'; readonly method: string; readonly path: string; readonly body: BodyRecipe | null; readonly headers: ReadonlyArray<HeaderRecipe> };

const ENDPOINT_PATHS = [
  '/graphql/', '/GRAPHQL', '/graphql%00', '//graphql', '/graphql/../graphql', '/api/../graphql', '/graphql/graphiql/', '/graphql/graphiql/x.js',
  '/graphql/graphiql/..%2f..%2f..%2fpackage.json', '/graphql/graphiql/../../package.json', '/graphql/graphiql/%2e%2e/%2e%2e/package.json',
];
const endpointPath = fc.oneof({ weight: 20, arbitrary: fc.constant('/graphql') }, { weight: 1, arbitrary: fc.constantFrom(...ENDPOINT_PATHS) });
const OTHER_METHODS = ['PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND'];

function endpointRequests(documentRecipes: fc.Arbitrary<DocumentRecipe>, accepts: fc.Arbitrary<string>): fc.Arbitrary<EndpointRecipe> {
  const members = requestMembers(documentRecipes);
  const request = members.map(object);
  const batch = fc.array(request, { maxLength: 12 }).map((items): JsonRecipe => ({ kind: 'array', items }));
  const body = bodies(fc.oneof({ weight: 6, arbitrary: request }, { weight: 1, arbitrary: batch }));
  const sent = headers(accepts);
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ path: endpointPath, body, headers: sent }).map((each): EndpointRecipe => ({ kind: 'post', ...each })) },
    { weight: 3, arbitrary: fc.record({ path: endpointPath, members, raw: rawParameters, headers: sent }).map((each): EndpointRecipe => ({ kind: 'get', ...each })) },
    {
      weight: 1,
      arbitrary: fc
        .record({ method: fc.constantFrom(...OTHER_METHODS), path: endpointPath, body: fc.option(body, { nil: null }), headers: sent })
        .map((each): EndpointRecipe => ({ kind: 'other', ...each })),
    },
  );
}

function endpointRequest(recipe: EndpointRecipe): HttpRequest {
  const sent = headerPairs(recipe.headers);
  switch (recipe.kind) {
    case 'post':
      return { method: 'POST', path: recipe.path, headers: sent, body: bodyBytes(recipe.body) };
    case 'get': {
      const search = queryString(recipe.members, recipe.raw);
      return { method: 'GET', path: `${recipe.path}${recipe.path.includes('?') ? '&' : '?'}${search}`, headers: sent, body: null };
    }
    case 'other':
      return { method: recipe.method, path: recipe.path, headers: sent, body: recipe.body === null ? null : bodyBytes(recipe.body) };
  }
}

interface CaseOptions {
  /** What to do while an event stream is open (publish reviews). */
  readonly whileOpen?: () => Promise<void>;
  /** The request sent this many times at once (default 1): subscribers of one shared subscription. */
  readonly copies?: number;
}

/** One request (or copies of it at once), the laws of its answers, and the server's state after them. */
function exchangeCase(target: Target, caught: unknown[], request: HttpRequest, options: CaseOptions = {}): Promise<void> {
  return soundCase(target, caught, async () => {
    let answers: Answer[];
    try {
      answers = await Promise.all(Array.from({ length: options.copies ?? 1 }, () => exchange(target.demo.port, request, options.whileOpen)));
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${summary(request, null)}`);
    }
    for (const answer of answers) expect(answerProblems(request, answer, target), summary(request, answer)).toEqual([]);
  });
}

describe('HTTP: POST and GET /graphql', () => {
  const recipes = endpointRequests(queryDocuments, endpointAccepts);

  it.each(TARGET_NAMES)(
    'answers any request to the endpoint within 5 s, never with a 5xx, in JSON whose every error has a stable code, and keeps serving (%s)',
    async (name) => {
      const target = targetNamed(name);
      const caught = watchUncaught();
      await fc.assert(
        fc.asyncProperty(recipes, (recipe) => exchangeCase(target, caught, endpointRequest(recipe))),
        PROPERTY_OPTIONS,
      );
      await expectServing(target);
    },
    TEST_TIMEOUT_MS,
  );

  // Left out of the property, which would otherwise meet it every run: node's parser refuses a
  // raw byte over 0x7f in the request line, and the server's clientError answer speaks for it.
  it.each(TARGET_NAMES)('answers a request line the HTTP parser refuses in JSON with a stable code, as it does every other refusal (%s)', async (name) => {
    const target = targetNamed(name);
    const request: HttpRequest = { method: 'GET', path: '/api/v1/\u00e9', headers: [], body: null };
    const answer = await exchange(target.demo.port, request);
    expect(answerProblems(request, answer, target), summary(request, answer)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Server-Sent Events
// ---------------------------------------------------------------------------------------------

/** Books of the demo's store: a review of a book it does not have would fail Review.book, a resolver error of the test's making. */
const BOOK_IDS = ['b1', 'b2', 'b3', 'b5'];
const EVENT_STREAM_ACCEPTS = ['text/event-stream', 'text/event-stream', 'text/event-stream, application/json', 'text/event-stream;q=0.5, application/json;q=0.1'];

interface StreamRecipe {
  readonly request: EndpointRecipe;
  /** The books reviews are published for while the stream is open. */
  readonly publish: ReadonlyArray<string>;
  /** The request sent this many times at once. */
  readonly copies: number;
}

describe('Server-Sent Events', () => {
  const accepts = fc.constantFrom(...EVENT_STREAM_ACCEPTS);
  const recipes: fc.Arbitrary<StreamRecipe> = fc.record({
    request: endpointRequests(subscriptionDocuments, accepts).filter((recipe) => recipe.kind !== 'other'),
    publish: fc.array(fc.constantFrom(...BOOK_IDS), { maxLength: 3 }),
    copies: fc.constantFrom(1, 1, 1, 2, 3),
  });

  it.each(TARGET_NAMES)(
    'answers any operation asked for as text/event-stream with next events and one complete (or a JSON refusal), also while reviews are published to it, never with a 5xx, and leaves no subscription behind (%s)',
    async (name) => {
      const target = targetNamed(name);
      const caught = watchUncaught();
      await fc.assert(
        fc.asyncProperty(recipes, (recipe) => {
          const request = endpointRequest(recipe.request);
          // An event stream is always asked for: text/event-stream when the headers name no Accept.
          const asksForStream = request.headers.some(([header]) => header === 'accept');
          const streamed = asksForStream ? request : { ...request, headers: [['accept', 'text/event-stream'] as const, ...request.headers] };
          const whileOpen = async (): Promise<void> => {
            for (const bookId of recipe.publish) await publishReview(target, bookId);
          };
          return exchangeCase(target, caught, streamed, { whileOpen, copies: recipe.copies });
        }),
        PROPERTY_OPTIONS,
      );
      await expectServing(target);
    },
    TEST_TIMEOUT_MS,
  );
});

// ---------------------------------------------------------------------------------------------
// WebSocket (graphql-transport-ws)
// ---------------------------------------------------------------------------------------------

/** How a WebSocket closed, as the client saw it. */
interface Closed {
  readonly code: number;
  readonly reason: string;
}

/** What an upgrade came to: an open session, or the HTTP answer that refused it. */
type Opening = { readonly kind: 'open'; readonly session: Session } | { readonly kind: 'refused'; readonly answer: Answer };

const SERVER_MESSAGE_TYPES = new Set(['connection_ack', 'ping', 'pong', 'next', 'error', 'complete']);

/** A graphql-transport-ws client that sends what it is given and records every message and the close. */
class Session {
  /** Every text message the server sent, as sent. */
  readonly texts: string[] = [];
  binaryMessages = 0;
  closedWith: Closed | null = null;
  readonly #socket: WebSocket;
  /** The client dropped the connection before any close: the close it then sees (1006) is its own doing. */
  #dropped = false;
  #wake: Array<() => void> = [];
  #settles = 0;

  constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) this.binaryMessages += 1;
      else this.texts.push(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8'));
      this.#notify();
    });
    socket.on('close', (code: number, reason: Buffer) => {
      this.closedWith = { code, reason: reason.toString('utf8') };
      this.#notify();
    });
    // A write after the server closed is not the test's failure; the close says what happened.
    socket.on('error', () => undefined);
  }

  /** Opens a socket to the endpoint with these subprotocols and headers. */
  static open(port: number, protocols: ReadonlyArray<string>, headers: Record<string, string>): Promise<Opening> {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/graphql`, [...protocols], { headers, perMessageDeflate: false });
    const session = new Session(socket);
    const opened = new Promise<Opening>((resolve, reject) => {
      socket.once('open', () => resolve({ kind: 'open', session }));
      socket.once('unexpected-response', (_request, response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({ kind: 'refused', answer: { status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8'), open: false } });
          socket.terminate();
        });
      });
      socket.once('error', reject);
    });
    return within(opened, DEADLINE_MS, 'the WebSocket upgrade');
  }

  send(data: string | Buffer): void {
    if (this.#socket.readyState === WebSocket.OPEN) this.#socket.send(data, { binary: Buffer.isBuffer(data) });
  }

  /** Waits until everything sent so far is answered: the pong of a ping sent now, or the close (or until `giveUp` says to stop). */
  async settle(giveUp: () => boolean = () => false): Promise<void> {
    if (this.closedWith !== null) return;
    this.#settles += 1;
    const marker = `"settle-${this.#settles}"`;
    this.send(`{"type":"ping","payload":{"marker":${marker}}}`);
    await this.until(() => giveUp() || this.closedWith !== null || this.texts.some((text) => text.includes(marker)), 'the pong of a ping sent after every message');
  }

  /** Closes normally (1000), unless the server did, and waits for the close to complete. */
  async hangUp(): Promise<void> {
    if (this.#socket.readyState === WebSocket.OPEN) this.#socket.close(1000);
    await this.until(() => this.closedWith !== null, 'the close');
  }

  /** Drops the TCP connection without a close frame. */
  terminate(): void {
    if (this.closedWith === null) this.#dropped = true;
    this.#socket.terminate();
  }

  /** What is wrong with what the server sent: a message that is not the protocol's, or a close that is not. */
  problems(): string[] {
    const problems = this.texts.flatMap((text) => jsonProblems(text, serverMessageProblems));
    if (this.binaryMessages > 0) problems.push(`${this.binaryMessages} binary messages`);
    const closed = this.closedWith;
    if (closed !== null && !this.#dropped && !PROTOCOL_CLOSE_CODES.has(closed.code)) problems.push(`closed with ${closed.code} "${closed.reason}"`);
    return problems;
  }

  /** Waits until the condition holds (checked at each message, at the close, and every few milliseconds); fails after DEADLINE_MS. */
  async until(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + DEADLINE_MS;
    while (!condition()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`No answer within ${DEADLINE_MS} ms: waited for ${what}.`);
      await within(new Promise<void>((resolve) => this.#wake.push(resolve)), Math.min(left, 20), what).catch(() => undefined);
    }
  }

  #notify(): void {
    for (const wake of this.#wake.splice(0)) wake();
  }
}

function serverMessageProblems(message: unknown): string[] {
  if (!isRecord(message) || typeof message['type'] !== 'string' || !SERVER_MESSAGE_TYPES.has(message['type'])) return [`a message of no known type: ${preview(message)}`];
  const id = message['id'];
  switch (message['type']) {
    case 'next':
      return typeof id === 'string' ? resultProblems(message['payload']) : [`next without an id: ${preview(message)}`];
    case 'error': {
      const errors = message['payload'];
      if (typeof id !== 'string' || !Array.isArray(errors) || errors.length === 0) return [`error without an id or errors: ${preview(message)}`];
      return errors.flatMap(graphqlErrorProblems);
    }
    case 'complete':
      return typeof id === 'string' ? [] : [`complete without an id: ${preview(message)}`];
    default:
      return [];
  }
}

/** One thing a client does in a session. */
type SessionStep =
  /** Sends a JSON message: connection_init, subscribe, complete, ping, pong, or one of no type at all. */
  | { readonly kind: 'send'; readonly message: JsonRecipe }
  /** Sends text that is not JSON. */
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'binary'; readonly bytes: ReadonlyArray<number> }
  /** Publishes a review for this book to the demo's subscribers. */
  | { readonly kind: 'publish'; readonly bookId: string }
  | { readonly kind: 'pause'; readonly ms: number };

/**
 * How the client leaves: `close` once everything sent is answered, with 1000; `drop` then, without
 * a close frame; `hasty` at once, without a close frame, whatever the server is still doing.
 */
type Ending = 'close' | 'drop' | 'hasty';

interface SessionRecipe {
  readonly protocols: ReadonlyArray<string>;
  readonly headers: ReadonlyArray<HeaderRecipe>;
  readonly steps: ReadonlyArray<SessionStep>;
  readonly ending: Ending;
}

const typed = (type: string, members: Members): JsonRecipe => object([['type', value(type)], ...members]);
const send = (message: JsonRecipe): SessionStep => ({ kind: 'send', message });
const optionalPayload = (payload: fc.Arbitrary<JsonRecipe>): fc.Arbitrary<Members> =>
  fc.option(payload, { freq: 2, nil: null }).map((each): Members => (each === null ? [] : [['payload', each]]));
const operationId = fc.constantFrom('1', '2', 'a', 'op').map(value);

const INIT_PAYLOADS: ReadonlyArray<fc.JsonValue> = [{}, {}, {}, { 'x-api-key': 'demo-reader' }, { 'x-api-key': 'demo-editor' }, { 'x-api-key': 'demo-admin' }, { headers: { 'x-api-key': 'demo-editor' } }];
const HOSTILE_INIT_PAYLOADS: ReadonlyArray<fc.JsonValue> = [
  { Authorization: 'Bearer x' }, { authorization: 'a', Authorization: 'b' }, { headers: { 'x-api-key': 5 } }, { headers: { 'X-API-KEY': 'demo-reader', 'x-api-key': 'demo-reader' } },
  { 'x-api-key': ['demo-admin'] }, { headers: 'x-api-key' }, { 'x-api-key': null }, { 'x-api-key': 'not-a-key' }, null,
];
const NOT_JSON = ['{', '', 'not json', '{"type":"subscribe"', '\u0000', '\ud800', '[1,]', 'ping'];
const STRANGE_TYPES = ['next', 'error', 'connection_ack', 'start', 'stop', 'connection_terminate', '', 'Subscribe', 'subscribe ', 'ping\u0000'];

/** What a well-behaved client does after connection_init (the operations it subscribes to may still be hostile). */
const politeStep: fc.Arbitrary<SessionStep> = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(operationId, requestMembers(subscriptionDocuments)).map(([id, members]) => send(typed('subscribe', [['id', id], ['payload', object(members)]]))) },
  { weight: 2, arbitrary: operationId.map((id) => send(typed('complete', [['id', id]]))) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('ping', 'pong'), optionalPayload(fc.constant(value({ n: 1 })))).map(([type, members]) => send(typed(type, members))) },
  { weight: 2, arbitrary: fc.constantFrom(...BOOK_IDS).map((bookId): SessionStep => ({ kind: 'publish', bookId })) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 20 }).map((ms): SessionStep => ({ kind: 'pause', ms })) },
);

/** What breaks the protocol or pushes its limits: each may end the session, with its close code. */
const hostileStep: fc.Arbitrary<SessionStep> = fc.oneof(
  {
    weight: 2,
    arbitrary: optionalPayload(
      fc.oneof(
        fc.constantFrom(...INIT_PAYLOADS, ...HOSTILE_INIT_PAYLOADS).map(value),
        jsonLeaf,
        fc.tuple(fc.constantFrom('headers', 'x-api-key', 'Authorization'), deepObject).map(([name, deep]) => object([[name, deep]])),
      ),
    ).map((members) => send(typed('connection_init', members))),
  },
  { weight: 2, arbitrary: fc.tuple(fc.oneof(operationId, jsonLeaf), jsonLeaf).map(([id, payload]) => send(typed('subscribe', [['id', id], ['payload', payload]]))) },
  { weight: 1, arbitrary: fc.tuple(operationId, requestMembers(subscriptionDocuments)).map(([id, members]) => send(typed('subscribe', [['id', id], ['payload', object(members)]]))) },
  { weight: 1, arbitrary: jsonLeaf.map((id) => send(typed('complete', [['id', id]]))) },
  // A ping's payload (an object) comes back in its pong: deep ones most of the time.
  { weight: 3, arbitrary: fc.oneof(jsonLeaf, deepObject, deepObject).map((payload) => send(typed('ping', [['payload', payload]]))) },
  { weight: 1, arbitrary: optionalPayload(fc.oneof(jsonLeaf, deepJson)).map((members) => send(typed('pong', members))) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(...STRANGE_TYPES), fc.array(fc.tuple(fc.constantFrom('id', 'payload', 'type'), jsonLeaf), { maxLength: 2 }))
      .map(([type, members]) => send(typed(type, members))),
  },
  { weight: 1, arbitrary: jsonLeaf.map(send) },
  { weight: 1, arbitrary: fc.constantFrom(...NOT_JSON).map((text): SessionStep => ({ kind: 'text', text })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 40 }).map((bytes): SessionStep => ({ kind: 'binary', bytes: [...bytes] })) },
);

const PROTOCOL_OFFERS: ReadonlyArray<ReadonlyArray<string>> = [
  [SUBPROTOCOL], [SUBPROTOCOL], [SUBPROTOCOL], [SUBPROTOCOL], [SUBPROTOCOL], [SUBPROTOCOL], ['graphql-ws'], [], ['graphql-ws', SUBPROTOCOL], ['GRAPHQL-TRANSPORT-WS'],
];
const UPGRADE_HEADERS: ReadonlyArray<ReadonlyArray<HeaderRecipe>> = [
  [], [], [], [], [], [['origin', APP_ORIGIN]], [['origin', 'https://evil.example']], [['origin', 'null']], [['x-api-key', 'demo-editor']],
  [['x-api-key', 'not-a-key']], [['authorization', 'Bearer x']], [['x-api-key', { prefix: '', length: 100_000 }]],
];

/**
 * Sessions: connection_init first (mostly), then what a well-behaved client does, with one
 * hostile step inserted somewhere half the time (the first one breaking the protocol ends the
 * session, so more would go unread).
 */
const sessions: fc.Arbitrary<SessionRecipe> = fc
  .record({
    protocols: fc.constantFrom(...PROTOCOL_OFFERS),
    headers: fc.constantFrom(...UPGRADE_HEADERS),
    init: fc.option(optionalPayload(fc.constantFrom(...INIT_PAYLOADS).map(value)), { freq: 8, nil: null }),
    steps: fc.array(politeStep, { maxLength: 10 }),
    hostile: fc.option(fc.tuple(hostileStep, fc.nat()), { freq: 2, nil: null }),
    ending: fc.constantFrom<Ending>('close', 'close', 'close', 'drop', 'hasty'),
  })
  .map(({ protocols, headers: sent, init, steps, hostile, ending }): SessionRecipe => {
    const polite = init === null ? steps : [send(typed('connection_init', init)), ...steps];
    if (hostile === null) return { protocols, headers: sent, steps: polite, ending };
    const [step, at] = hostile;
    const index = at % (polite.length + 1);
    return { protocols, headers: sent, steps: [...polite.slice(0, index), step, ...polite.slice(index)], ending };
  });

async function play(session: Session, target: Target, steps: ReadonlyArray<SessionStep>): Promise<void> {
  for (const step of steps) {
    switch (step.kind) {
      case 'send':
        session.send(jsonText(step.message));
        break;
      case 'text':
        session.send(step.text);
        break;
      case 'binary':
        session.send(Buffer.from(step.bytes));
        break;
      case 'publish':
        await publishReview(target, step.bookId);
        break;
      case 'pause':
        await new Promise((resolve) => setTimeout(resolve, step.ms));
        break;
    }
  }
}

/** How the client leaves (`serverThrew`: stop waiting for answers, which will not come). */
async function leave(session: Session, ending: Ending, serverThrew: () => boolean): Promise<void> {
  switch (ending) {
    case 'close':
      await session.settle(serverThrew);
      if (!serverThrew()) await session.hangUp();
      return;
    case 'drop':
      await session.settle(serverThrew);
      session.terminate();
      return;
    case 'hasty':
      session.terminate();
      return;
  }
}

/** One session: its upgrade (or refusal), its steps, a ping that must be answered, the client's leaving; the laws of all it got. */
function sessionCase(target: Target, caught: unknown[], recipe: SessionRecipe): Promise<void> {
  return soundCase(target, caught, async () => {
    const opening = await Session.open(target.demo.port, recipe.protocols, Object.fromEntries(headerPairs(recipe.headers)));
    if (opening.kind === 'refused') {
      const upgrade: HttpRequest = { method: 'GET', path: '/graphql', headers: headerPairs(recipe.headers), body: null };
      expect(answerProblems(upgrade, opening.answer, target), summary(upgrade, opening.answer)).toEqual([]);
      return;
    }
    const session = opening.session;
    try {
      await play(session, target, recipe.steps);
      await leave(session, recipe.ending, () => caught.length > 0);
    } finally {
      session.terminate();
    }
    expect(session.problems(), `received ${preview(session.texts)}`).toEqual([]);
  });
}

describe('WebSocket (graphql-transport-ws)', () => {
  it.each(TARGET_NAMES)(
    'answers any sequence of client messages with protocol messages within 5 s, closes only with a protocol close code (never 1011 or a dropped connection), and leaves no subscription or socket behind (%s)',
    async (name) => {
      const target = targetNamed(name);
      const caught = watchUncaught();
      await fc.assert(
        fc.asyncProperty(sessions, (recipe) => sessionCase(target, caught, recipe)),
        PROPERTY_OPTIONS,
      );
      await expectServing(target);
    },
    TEST_TIMEOUT_MS,
  );
});

// ---------------------------------------------------------------------------------------------
// Resource routes
// ---------------------------------------------------------------------------------------------

interface ResourceRecipe {
  readonly method: string;
  readonly prefix: string;
  readonly segments: ReadonlyArray<Text>;
  readonly query: ReadonlyArray<Text>;
  readonly headers: ReadonlyArray<HeaderRecipe>;
  readonly body: BodyRecipe | null;
}

const RESOURCE_METHODS = ['GET', 'GET', 'GET', 'HEAD', 'POST', 'POST', 'PUT', 'PATCH', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND'];
const PREFIXES = ['/api/v1', '/api/v1', '/api/v1', '/api/v1', '/api', '/api/v2', '/api/v0', '/api/V1', '/api/v1.0', '/api//v1', '/api/%76%31', '/API/v1', '/api/./v1', '/api/latest'];
const SEGMENTS = [
  'authors', 'books', 'reviews', 'authors', 'books', 'reviews', 'a1', 'b1', 'b3', 'r1', 'r2', 'x', '', '.', '..', '%2e%2e', '%2E', '%2f', '%2F..%2F', '%00',
  '%zz', '%', '%C0%AF', '%E9', '%F0%9F%98%80', 'books;v=1', 'openapi.json', '~', '*', '%20', 'b1%2Freviews', '{id}', ':id', 'null',
  '__proto__', 'constructor', 'toString', 'hasOwnProperty',
];
const QUERY_KEYS = ['genre', 'sort', 'limit', 'offset', 'stars', 'text', 'id', 'cursor', 'bookId', 'unknown', 'limit[]', '', '__proto__', 'constructor', 'toString', 'genre%00', '%zz'];
const QUERY_VALUES = [
  'FICTION', 'fiction', 'SCIENCE', 'TITLE', 'PUBLISHED', '10', '0', '-1', '101', '5', '3.5', '1e3', '99999999999999999999', '0x10', '', '%', '%zz',
  '%00', 'null', 'true', '[1]', '%5B1%5D', '{"a":1}', 'a+b', '%E9', '%C0%AF', 'NaN', 'Infinity',
];
const longText = (prefix: string, huge: number): fc.Arbitrary<Text> => size(huge).map((length): Text => ({ prefix, length }));
const segment = fc.oneof({ weight: 12, arbitrary: fc.constantFrom<Text>(...SEGMENTS) }, { weight: 1, arbitrary: longText('', 100_000) });
const queryPart = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.constantFrom(...QUERY_KEYS), fc.constantFrom(...QUERY_VALUES)).map(([key, each]): Text => `${key}=${each}`) },
  { weight: 1, arbitrary: fc.constantFrom<Text>(...QUERY_KEYS) },
  { weight: 1, arbitrary: longText('text=', 100_000) },
);
const RESOURCE_MEMBERS = ['stars', 'text', 'bookId', 'id', 'genre', 'limit', 'unknown', '__proto__'];
const resourceBody = bodies(fc.array(fc.tuple(fc.constantFrom(...RESOURCE_MEMBERS), variableValue), { maxLength: 4 }).map(object));

const CONDITIONS: ReadonlyArray<HeaderRecipe> = [
  ['if-match', '*'], ['if-match', '"stale"'], ['if-match', 'W/"weak"'], ['if-match', '"a", "b"'], ['if-match', ''], ['if-match', '\u00ff'],
  ['if-none-match', '*'], ['if-none-match', '"stale"'], ['if-none-match', 'W/"x", "y"'], ['if-none-match', ''],
  ['api-version', 'v1'], ['api-version', 'v2'], ['api-version', '1'], ['api-version', 'v1, v2'], ['api-version', ''], ['accept-version', 'v0'], ['accept-version', 'v1'],
];

const resourceRequests: fc.Arbitrary<ResourceRecipe> = fc.record({
  method: fc.constantFrom(...RESOURCE_METHODS),
  prefix: fc.constantFrom(...PREFIXES),
  segments: fc.array(segment, { maxLength: 4 }),
  query: fc.oneof({ weight: 2, arbitrary: fc.constant<Text[]>([]) }, { weight: 1, arbitrary: fc.array(queryPart, { minLength: 1, maxLength: 4 }) }),
  headers: fc
    .tuple(
      headers(fc.constantFrom('application/json', 'application/json', '*/*', 'text/html', 'application/xml', 'application/json;q=0', '')),
      fc.array(fc.constantFrom(...CONDITIONS), { maxLength: 2 }),
    )
    .map(([sent, conditions]) => [...sent, ...conditions]),
  body: fc.option(resourceBody, { freq: 2, nil: null }),
});

function resourceRequest(recipe: ResourceRecipe): HttpRequest {
  const path = recipe.prefix + recipe.segments.map((each) => `/${textOf(each)}`).join('');
  const search = recipe.query.length === 0 ? '' : `?${recipe.query.map(textOf).join('&')}`;
  return { method: recipe.method, path: path + search, headers: headerPairs(recipe.headers), body: recipe.body === null ? null : bodyBytes(recipe.body) };
}

describe('resource routes', () => {
  it.each(TARGET_NAMES)(
    'answers any method, path, query string, headers and body under /api within 5 s, never with a 5xx, in JSON with a stable error code (%s)',
    async (name) => {
      const target = targetNamed(name);
      const caught = watchUncaught();
      await fc.assert(
        fc.asyncProperty(resourceRequests, (recipe) => exchangeCase(target, caught, resourceRequest(recipe))),
        PROPERTY_OPTIONS,
      );
      await expectServing(target);
    },
    TEST_TIMEOUT_MS,
  );
});

// ---------------------------------------------------------------------------------------------
// The process after every transport
// ---------------------------------------------------------------------------------------------

/** `{ __typename }` over GET, a review delivered over an event stream, and `{ __typename }` over a WebSocket. */
async function expectEveryTransport(target: Target): Promise<void> {
  const port = target.demo.port;
  const got = await exchange(port, { method: 'GET', path: `/graphql?query=${encodeURIComponent('{ __typename }')}`, headers: [['x-graphql-csrf', '1']], body: null });
  expect(JSON.parse(got.text)).toMatchObject({ data: { __typename: 'Query' } });
  const subscription = Buffer.from(JSON.stringify({ query: 'subscription { reviewAdded(bookId: "b2") { bookId } }' }));
  const streamed = await exchange(port, { method: 'POST', path: '/graphql', headers: [['content-type', 'application/json'], ['accept', 'text/event-stream']], body: subscription }, () =>
    publishReview(target, 'b2'),
  );
  const first = streamed.text.split('\n\n')[0] ?? '';
  expect(first.startsWith('event: next\ndata: '), streamed.text).toBe(true);
  expect(JSON.parse(first.slice('event: next\ndata: '.length))).toMatchObject({ data: { reviewAdded: { bookId: 'b2' } } });
  const opening = await Session.open(port, [SUBPROTOCOL], {});
  if (opening.kind === 'refused') throw new Error(`The upgrade was refused: ${opening.answer.status} ${opening.answer.text}`);
  const session = opening.session;
  session.send('{"type":"connection_init"}');
  session.send('{"id":"q","type":"subscribe","payload":{"query":"{ __typename }"}}');
  await session.until(() => session.texts.includes('{"id":"q","type":"complete"}'), 'the operation to complete');
  await session.hangUp();
  expect(session.texts.map((text) => JSON.parse(text) as unknown)).toMatchObject([
    { type: 'connection_ack' },
    { id: 'q', type: 'next', payload: { data: { __typename: 'Query' } } },
    { id: 'q', type: 'complete' },
  ]);
  expect(session.closedWith).toEqual({ code: 1000, reason: '' });
}

describe('the laws on incremental delivery', () => {
  const deferred = Buffer.from(JSON.stringify({ query: '{ books(limit: 2) { items { title ... @defer { author { name } } } } }' }));

  it.each(['multipart/mixed', 'multipart/mixed; deferSpec=20220824', 'text/event-stream'])(
    'hold for a deferring operation answered as %s (its payloads checked, and the checks seen to fail on a broken one)',
    async (accept) => {
      const target = targetNamed('production');
      const request: HttpRequest = { method: 'POST', path: '/graphql', headers: [['content-type', 'application/json'], ['accept', accept]], body: deferred };
      const answer = await exchange(target.demo.port, request);
      expect(answer.text).toContain('"hasNext":false');
      expect(answerProblems(request, answer, target)).toEqual([]);
      // The same answer with an uncoded error in its last payload breaks the laws.
      const broken = { ...answer, text: answer.text.replace('"hasNext":false', '"hasNext":false,"errors":[{"message":"no code"}]') };
      expect(answerProblems(request, broken, target)).toEqual(['an error without a stable code: {"message":"no code"}']);
    },
  );
});

describe('the process after every transport', () => {
  it.each(TARGET_NAMES)(
    'still answers { __typename } over POST, GET, an event stream and a WebSocket, and still delivers a published review to a subscription (%s)',
    async (name) => {
      const target = targetNamed(name);
      const caught = watchUncaught();
      await soundCase(target, caught, () => expectEveryTransport(target));
    },
  );

  it(`keeps less than ${HEAP_GROWTH_LIMIT / 1024 / 1024} MB more on its heap and in buffers, and less than ${RSS_GROWTH_LIMIT / 1024 / 1024} MB more resident, after every run`, () => {
    const rss = residentMemory() - rssBefore;
    const heap = keptMemory() - heapBefore;
    const grown = `the heap and buffers grew by ${(heap / 1024 / 1024).toFixed(1)} MB, RSS by ${(rss / 1024 / 1024).toFixed(1)} MB (after a garbage collection)`;
    console.log(`hostile input: ${grown}`);
    expect(heap, grown).toBeLessThan(HEAP_GROWTH_LIMIT);
    expect(rss, grown).toBeLessThan(RSS_GROWTH_LIMIT);
  });
});
