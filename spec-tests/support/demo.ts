/**
 * The demo service for a describe block, started as `npm start` (src/demo/main.ts) starts it:
 * `createServer` with `demoSchema`, a context from `createDemoContext` with the caller's
 * identity, and `...demoSecurity(env)`, on 127.0.0.1, port 0, over a store of its own (which
 * tests read to see whether a mutation ran).
 */
import { afterAll, beforeAll } from 'vitest';
import { createServer } from '../../src/index.ts';
import { demoSecurity } from '../../src/demo/config.ts';
import { createDemoContext, createDemoData, demoSchema } from '../../src/demo/librarySchema.ts';
import type { DemoData } from '../../src/demo/librarySchema.ts';
import { closeNow, listenOnLoopback } from './httpServer.ts';

export interface Demo {
  url: string;
  data: DemoData;
}

/** The demo for one describe block, started as main.ts starts it, with these environment variables. */
export function serveDemo(env: Record<string, string>): Demo {
  let started: { url: string; data: DemoData; close: () => Promise<void> } | undefined;
  beforeAll(async () => {
    const data = createDemoData();
    const server = createServer({
      schema: demoSchema,
      context: (_request, { identity }) => createDemoContext(data, identity),
      ...demoSecurity(env),
      log: () => undefined,
    });
    const port = await listenOnLoopback(server);
    started = { url: `http://127.0.0.1:${port}/graphql`, data, close: () => closeNow(server) };
  });
  afterAll(async () => {
    await started?.close();
  });
  const current = () => {
    if (started === undefined) throw new Error('The demo is read before its suite started it.');
    return started;
  };
  return {
    get url() {
      return current().url;
    },
    get data() {
      return current().data;
    },
  };
}
