/**
 * The JSON floor: a bare `node:http` server that does only what any JSON API in Node must do
 * for each request, and nothing GraphQL: read the body to its end (as the ceiling does),
 * `JSON.parse` it, and `JSON.stringify` a ready-made result (the very object our server's
 * answer parses to, kept from the start) with the same headers. No engine can answer a GraphQL request for less, so
 * the gap between this and the ceiling is the price of JSON in and out on this machine, and the
 * gap between ours and this is all that our engine adds.
 *
 * Usage: `node --import tsx bench/http/servers/json-floor.ts <response.json>` (see ceiling.ts).
 */
import '../../production-mode.ts';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { announce, listen, readCannedResponse } from './serve.ts';

const canned = readCannedResponse('json-floor.ts');
const result: unknown = JSON.parse(canned.body.toString('utf8'));

function respond(response: ServerResponse, requestBody: Buffer): void {
  const params = JSON.parse(requestBody.toString('utf8')) as { query?: unknown };
  if (typeof params.query !== 'string') {
    response.writeHead(400);
    response.end();
    return;
  }
  const body = JSON.stringify(result);
  response.writeHead(200, { ...canned.headers, 'content-length': String(Buffer.byteLength(body)) });
  response.end(body);
}

/** The body read as the ceiling reads it (see ceiling.ts): whole from the buffer when it came with its headers. */
function answer(request: IncomingMessage, response: ServerResponse): void {
  if (request.complete) {
    respond(response, (request.read() as Buffer | null) ?? Buffer.alloc(0));
    return;
  }
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => respond(response, Buffer.concat(chunks)));
}

const server = createServer((request, response) => setImmediate(answer, request, response));

await listen(server);
announce(server);
