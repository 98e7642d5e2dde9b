/**
 * The floor of OpenTelemetry on `{ hello }`: the ceiling's bare `node:http` server (ceiling.ts),
 * with the SDK set up as servers/ours.ts sets it up with `--otel=batch` (otelSdk.ts), making the
 * two spans our server makes for such a request and nothing else: a server span with the HTTP
 * attributes ours gives it, active while the request is answered, and under it an operation's
 * span with its type. What ours costs over this is ours to cut; what this costs over the
 * ceiling is the SDK's (and AsyncLocalStorage's).
 *
 * Usage: `node --import tsx bench/http/servers/otel-floor.ts <response.json>` (as ceiling.ts).
 */
import '../../production-mode.ts';
import { SpanKind, context, trace } from '@opentelemetry/api';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { registerTracerProvider } from './otelSdk.ts';
import { announce, listen, readCannedResponse } from './serve.ts';

await registerTracerProvider(true);
const tracer = trace.getTracer('otel-floor');
const canned = readCannedResponse('otel-floor.ts');
const body = canned.body;
const headers = { ...canned.headers, 'content-length': String(body.length) };

function respond(response: ServerResponse): void {
  const operation = tracer.startSpan('query', { kind: SpanKind.INTERNAL, attributes: { 'graphql.operation.type': 'query' } });
  operation.end();
  response.writeHead(200, headers);
  response.end(body);
}

/** As the ceiling reads a request, with the server span active. */
function answer(request: IncomingMessage, response: ServerResponse): void {
  const span = tracer.startSpan(
    'POST /graphql',
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': 'POST', 'url.path': '/graphql', 'url.scheme': 'http', 'http.route': '/graphql' } },
    context.active(),
  );
  response.once('close', () => {
    span.setAttribute('http.response.status_code', response.statusCode);
    span.end();
  });
  context.with(trace.setSpan(context.active(), span), () => {
    if (request.complete) {
      request.read();
      respond(response);
    } else {
      request.resume();
      request.on('end', () => respond(response));
    }
  });
}

const server = createServer((request, response) => setImmediate(answer, request, response));

await listen(server);
announce(server);
