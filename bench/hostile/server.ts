/**
 * The demo server of the hostile-load benchmark (index.ts), in a process of its own so that its
 * memory and event loop are measured alone: the demo's schema, context and resource routes as
 * `npm start` serves them (its security settings from the same environment variables, so no
 * rate limits unless RATE_LIMIT_PER_MINUTE is set), with CSRF prevention on and no log lines.
 *
 * It prints `{ "port": n }` once listening, then answers each IPC message `"measure"` with
 * `{ rss, heapUsed, worstDelayMs }`: its resident memory and the JavaScript heap in use (after a collection) and the longest the event
 * loop was held since the last measure (perf_hooks' monitorEventLoopDelay), which it then resets.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createServer } from '../../src/index.ts';
import { createDemoContext, createDemoData, demoSchema } from '../../src/demo/librarySchema.ts';
import { DEMO_RESOURCES, DEMO_RESOURCES_V2 } from '../../src/demo/resources.ts';
import { demoSecurity } from '../../src/demo/config.ts';

const data = createDemoData();
const server = createServer({
  schema: demoSchema,
  context: (_request, { identity }) => createDemoContext(data, identity),
  resources: [DEMO_RESOURCES, DEMO_RESOURCES_V2],
  ...demoSecurity(process.env),
  csrfPrevention: true,
  logLevel: 'silent',
});
const RESOLUTION_MS = 5;
const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
delay.enable();

process.on('message', (message) => {
  if (message !== 'measure') return;
  const worstDelayMs = delay.max / 1e6;
  (globalThis as { gc?: () => void }).gc?.();
  const { rss, heapUsed } = process.memoryUsage();
  // The collection forced here holds the event loop too, and the monitor records that on its
  // next tick: the histogram starts afresh only after it, and the answer (which starts the next
  // phase) waits for that, so that the measurement's own pause is counted in no phase.
  setTimeout(() => {
    delay.reset();
    process.send?.({ rss, heapUsed, worstDelayMs });
  }, 2 * RESOLUTION_MS);
});
process.on('disconnect', () => {
  void server.shutdown().then(() => process.exit(0));
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : 0 }));
});
