/**
 * `npm start`: the demo service at http://localhost:4000/graphql (PORT overrides; HOST too,
 * default 127.0.0.1; the security, metrics and webhook settings are read by config.ts). SIGTERM or Ctrl-C shuts it
 * down gracefully.
 */
import { createServer } from '../transports/http/server.ts';
import type { GraphQLServer } from '../transports/http/server.ts';
import { demoEvents, demoLogLevel, demoSecurity, demoWebhookStore, demoWebhooks } from './config.ts';
import { readinessOf } from '../observability/health.ts';
import type { ReadinessCheck } from '../observability/health.ts';
import type { Webhooks } from '../webhooks/webhooks.ts';
import { createDemoContext, createDemoData, demoSchema } from './librarySchema.ts';
import { DEMO_RESOURCES, DEMO_RESOURCES_V2 } from './resources.ts';

const port = Number(process.env.PORT ?? 4000);
const host = process.env.HOST ?? '127.0.0.1';
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number from 0 to 65535, got "${process.env.PORT}".`);
  process.exit(2);
}

let data: ReturnType<typeof createDemoData>;
let server: GraphQLServer;
let production: boolean;
let metricsOff: boolean;
let webhooks: Webhooks;
try {
  const logLevel = demoLogLevel(process.env);
  const webhookStore = demoWebhookStore(process.env);
  webhooks = demoWebhooks(process.env, webhookStore);
  // Deliveries left pending by the last run go out now.
  await webhooks.start();
  data = createDemoData(demoEvents(process.env), webhooks);
  const security = demoSecurity(process.env);
  server = createServer({
    schema: demoSchema,
    context: (_request, { identity }) => createDemoContext(data, identity),
    resources: [DEMO_RESOURCES, DEMO_RESOURCES_V2],
    ...security,
    logLevel,
    // With REDIS_URL, /readyz also says whether the pub/sub's and the webhooks' Redis connections are up.
    readinessChecks: [readinessOf(data.events), readinessOf(webhookStore)].filter((check): check is ReadinessCheck => check !== null),
  });
  production = security.production;
  metricsOff = security.metrics === false;
} catch (error) {
  // A setting that cannot be used: say which, and stop.
  console.error((error as Error).message);
  process.exit(2);
}

server.on('error', (error: NodeJS.ErrnoException) => {
  console.error(error.code === 'EADDRINUSE' ? `Port ${port} is in use; set PORT to another one.` : error.message);
  process.exit(1);
});

server.listen(port, host, () => {
  const address = server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : port;
  console.log(`GraphQL demo service at http://${host === '127.0.0.1' ? 'localhost' : host}:${actualPort}/graphql`);
  if (!production) console.log('Demo API keys (X-API-Key): demo-reader, demo-editor, demo-admin.');
  // Off only in production without a token (config.ts says why): an operator looking for the metrics learns how to get them.
  if (metricsOff) console.log('/metrics is off: in production it is served only with METRICS_TOKEN set, to scrapes that send it as a bearer token.');
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    console.log(`${signal}: finishing in-flight requests, then stopping.`);
    void server
      .shutdown()
      .then(() => Promise.all([data.events.close(), webhooks.close()]))
      .then(() => process.exit(0));
  });
}
