/**
 * The ceiling: a bare `node:http` server that reads each request to its end and answers with
 * the same precomputed bytes and headers every time. No GraphQL server can be faster on this
 * machine with this HTTP stack, so it bounds what the others can reach.
 *
 * Usage: `node --import tsx bench/http/servers/ceiling.ts <response.json>`, where the file holds
 * `{ headers, body }` with the body in base64: the exact bytes our server answered.
 */
import '../../production-mode.ts';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { announce, listen, readCannedResponse } from './serve.ts';

const canned = readCannedResponse('ceiling.ts');
const body = canned.body;
const headers = { ...canned.headers, 'content-length': String(body.length) };

function respond(response: ServerResponse): void {
  response.writeHead(200, headers);
  response.end(body);
}

/**
 * A GraphQL server must read the whole request before it can answer, so the ceiling does too,
 * the cheapest way node:http allows, which is also our server's (src/http/server.ts
 * `readParsedBody`): a body that arrived with its headers is taken from the request's buffer
 * once the parser is done with that read (the next check phase); any other is streamed to its
 * end. (Streaming every body through 'end' costs more than all of ours on `{ hello }`.)
 */
function answer(request: IncomingMessage, response: ServerResponse): void {
  if (request.complete) {
    request.read();
    respond(response);
  } else {
    request.resume();
    request.on('end', () => respond(response));
  }
}

const server = createServer((request, response) => setImmediate(answer, request, response));

await listen(server);
announce(server);
