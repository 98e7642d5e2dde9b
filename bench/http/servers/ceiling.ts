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
import { announce, listen, readCannedResponse } from './serve.ts';

const canned = readCannedResponse('ceiling.ts');
const body = canned.body;
const headers = { ...canned.headers, 'content-length': String(body.length) };

// A GraphQL server must read the whole request before it can answer, so the ceiling does too.
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, headers);
    response.end(body);
  });
});

await listen(server);
announce(server);
