/**
 * Our server, as a user would start it: `createServer` over the executor benchmark's schema,
 * data and synchronous resolvers, with a context factory. The cost report is turned off so that
 * the body is the same JSON the other servers send; production mode follows NODE_ENV, which
 * the benchmark sets to "production".
 *
 * With a credentials file as its argument (see credentials.ts), it also authenticates: JWT
 * bearer tokens verified with the file's RSA public key, and the file's API key. With
 * `--rate-limit=memory` or `--rate-limit=redis` instead, it limits requests per client, with a
 * budget the benchmark never exhausts (every request is charged and answered), in memory or in
 * the Redis at REDIS_URL; `--rate-limit=redis-ping` is the floor of the latter (see pingStore).
 * With `--otel` (or BENCH_OTEL=1), OpenTelemetry is on: a tracer provider registered with the
 * SDK's in-memory exporter and an AsyncLocalStorage context manager, as a service exporting
 * spans would have them (otelSdk.ts; `--otel=batch`: a BatchSpanProcessor).
 * `--otel-resolvers`: with a span per resolver too (`openTelemetry: { resolvers: true }`).
 */
import '../../production-mode.ts';
import { openSync } from 'node:fs';
import { apiKeyAuth, createServer, jwtAuth } from '../../../src/index.ts';
import type { RateLimitStore } from '../../../src/ratelimit/store.ts';
import { createBenchSchema, createDb } from '../../schema.ts';
import { readCredentials } from '../credentials.ts';
import { GRAPHQL_PATH } from '../scenarios.ts';
import { registerTracerProvider } from './otelSdk.ts';
import { announce, listen } from './serve.ts';

/** `--resources`: the resource route `GET /api/v1/authors`, for the `route` scenario. */
const withResources = process.argv.includes('--resources');
/** `--no-metrics`: no /metrics and no per-request counting; `--log-info`: a request line each, to /dev/null. */
const withoutMetrics = process.argv.includes('--no-metrics');
const logInfo = process.argv.includes('--log-info');
const rateLimitArg = process.argv.find((arg) => arg.startsWith('--rate-limit='));
/**
 * `--rate-limit=redis-ping`: the floor of a limit shared through Redis, one round trip per
 * request: a store whose every charge is one PING (and an allowance that says nothing).
 */
async function pingStore(): Promise<RateLimitStore> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: true });
  await redis.ping();
  const allowed = { allowed: true, retryAfterMs: 0, buckets: [{ remaining: 1_000_000_000, fullInMs: 0 }] };
  return { charge: () => redis.ping().then(() => allowed), close: async () => redis.disconnect() };
}
const rateLimitStore = rateLimitArg?.slice('--rate-limit='.length);
if (process.argv.some((arg) => arg.startsWith('--otel')) || process.env.BENCH_OTEL === '1') await registerTracerProvider(process.argv.includes('--otel=batch'));
const withResolverSpans = process.argv.includes('--otel-resolvers');
const credentialsArg = process.argv.slice(2).find((arg) => !arg.startsWith('--'));
const credentials = credentialsArg === undefined ? null : readCredentials(credentialsArg);
const db = createDb();
const server = createServer({
  schema: createBenchSchema('sync'),
  path: GRAPHQL_PATH,
  context: () => ({ db }),
  reportCost: false,
  // Log lines (the ready line among them) on stderr: stdout is the control channel (serve.ts).
  logger: { fd: 2 },
  ...(withResources ? { resources: { version: 'v1', routes: { 'GET /authors': 'query { authors { id name } }' } } } : {}),
  ...(withoutMetrics ? { metrics: false } : {}),
  ...(withResolverSpans ? { openTelemetry: { resolvers: true } } : {}),
  ...(logInfo ? { logLevel: 'info' as const, logger: { fd: openSync('/dev/null', 'w') } } : {}),
  ...(rateLimitStore === undefined
    ? {}
    : {
        rateLimit: {
          // A billion a second: charged on every request, never refused.
          requests: { limit: 1_000_000_000, windowSeconds: 1 },
          store:
            rateLimitStore === 'redis'
              ? { type: 'redis' as const, url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', keyPrefix: `bench:${process.pid}:` }
              : rateLimitStore === 'redis-ping'
                ? await pingStore()
                : { type: 'memory' as const },
        },
      }),
  authenticate:
    credentials === null
      ? []
      : [
          jwtAuth({ publicKey: credentials.publicKeyPem, issuer: credentials.issuer, audience: credentials.audience }),
          apiKeyAuth({ keys: [{ id: 'bench', hash: credentials.apiKeyHash, roles: ['reader'] }] }),
        ],
});
await listen(server);
announce(server);
