/**
 * `npm start`: the demo service at http://localhost:4000/graphql (PORT overrides; HOST too,
 * default 127.0.0.1; NODE_ENV, PORT, HOST and REDIS_URL are checked first by environment.ts; the
 * security, metrics and webhook settings are read by config.ts). SIGTERM or Ctrl-C shuts it down
 * gracefully.
 */
import { createServer } from '../transports/http/server.ts';
import type { GraphQLServer } from '../transports/http/server.ts';
import { demoEvents, demoLogLevel, demoSecurity, demoWebhookStore, demoWebhooks } from './config.ts';
import { checkRedis, demoAddress, demoMode } from './environment.ts';
import { readinessOf } from '../observability/health.ts';
import type { ReadinessCheck } from '../observability/health.ts';
import type { Webhooks } from '../webhooks/webhooks.ts';
import { createDemoContext, createDemoData, demoSchema } from './librarySchema.ts';
import { DEMO_RESOURCES, DEMO_RESOURCES_V2 } from './resources.ts';

/** The first query of the README's tour, as GraphiQL first shows it. */
const TOUR_QUERY = `# The README's tour: run this, then open the Trace panel (left bar),
# tick "Trace each request" and run it again.
{
  books(limit: 3) {
    items {
      title
      author {
        name
        books {
          title
        }
      }
    }
  }
}
`;

let port: number;
let host: string;
try {
  demoMode(process.env);
  ({ port, host } = demoAddress(process.env));
  await checkRedis(process.env);
} catch (error) {
  // A setting that cannot be used, or a service that does not answer: say which, and stop.
  console.error((error as Error).message);
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
    // GraphiQL opens on the README tour's first query (and stays off in production).
    graphiql: security.production ? false : { defaultQuery: TOUR_QUERY },
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
  console.error(listenFailure(error));
  process.exit(1);
});

/** Why the server could not listen, naming the variable to change. */
function listenFailure(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'EADDRINUSE':
      return `Port ${port} is in use; set PORT to another one.`;
    case 'EACCES':
      return `Port ${port} needs privileges this process does not have; set PORT to one above 1023.`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST ${host} is not an address of this machine (${error.code}); set HOST to one, or unset it for 127.0.0.1.`;
    default:
      return error.message;
  }
}

// The server's logger writes where it listens (graphql-glassbox listening on http://…/graphql);
// a failure to listen is this handler's to report (listenFailure), the logger's line not written.
server.listen(port, host, () => {
  if (!production) console.log('Demo API keys (X-API-Key): demo-reader, demo-editor, demo-admin.');
  // Off only in production without a token (config.ts says why): an operator looking for the metrics learns how to get them.
  if (metricsOff) console.log('/metrics is off: in production it is served only with METRICS_TOKEN set, to scrapes that send it as a bearer token.');
});

// Listened to for good, not once: under `npm start` the process group's signal comes twice (npm
// forwards the one it got too), and a second one, with no listener left, would kill the process
// halfway through its shutdown, its last output lost. A repeated signal changes nothing.
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests, then stopping.`);
    void server
      .shutdown()
      .then(() => Promise.all([data.events.close(), webhooks.close()]))
      .then(() => process.exit(0));
  });
}
