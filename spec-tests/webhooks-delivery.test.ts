/**
 * Webhook delivery (src/webhooks/webhooks.ts): what a receiver gets, and what is recorded of it.
 *
 * Every test runs createWebhooks over a FileStore in a fresh temporary directory, with a
 * compressed schedule (retries after 50, 100 and 100 ms, no jitter), 300 ms per attempt, and
 * receivers (spec-tests/support/webhooks.ts) on 127.0.0.1, allowlisted, whose answers are
 * scripted per request. Every delivery a receiver gets is verified with the `standardwebhooks`
 * receiver library and the secret `register` returned.
 *
 * The address checked at every attempt: an endpoint registered under an allowance, then sent
 * by an instance without it on the same store (a restart), on the file store and, when
 * REDIS_URL is set, on Redis; the IP-literal spellings against a dual-stack receiver on `::`;
 * a name that resolves to a private address at connect time, through an injected resolver.
 *
 * Also here: the registration and option refusals (exact messages and codes), publish, the
 * event bus (webhooks and pub/sub from one call), and the demo's GraphQL admin API.
 */
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo, LookupFunction } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createEventBus } from '../src/events/eventBus.ts';
import { createPubSub } from '../src/events/pubsub.ts';
import { createServer } from '../src/index.ts';
import { demoSecurity } from '../src/demo/config.ts';
import { DEMO_EVENT_TYPES, createDemoContext, createDemoData, demoSchema } from '../src/demo/librarySchema.ts';
import { FileStore, JOURNAL_FILE } from '../src/webhooks/fileStore.ts';
import { RedisWebhookStore } from '../src/webhooks/redisStore.ts';
import type { Delivery, WebhookEvent, WebhookStore } from '../src/webhooks/store.ts';
import { WebhookError, createWebhooks } from '../src/webhooks/webhooks.ts';
import type { Webhooks, WebhooksOptions } from '../src/webhooks/webhooks.ts';
import { closeNow, json, listenOnLoopback, postJson } from './support/httpServer.ts';
import { expectTypeError, rejectionOf } from './support/expectations.ts';
import {
  Cleanup,
  FAST,
  closedPort,
  hang,
  ok,
  reset,
  startReceiver,
  startWebhooks,
  tempDir,
  verificationFailure,
  verifyDelivery,
  waitUntil,
} from './support/webhooks.ts';
import type { Receiver, Reply, TestWebhooks } from './support/webhooks.ts';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** Webhooks over a fresh FileStore (FAST options and these), closed after the test. */
async function webhooksWith(overrides: Partial<WebhooksOptions> = {}): Promise<TestWebhooks> {
  return cleanup.add(await startWebhooks(overrides));
}

/** A receiver closed after the test (before the webhooks made earlier, so that no attempt is left hanging). */
async function receiver(otherwise?: Reply): Promise<Receiver> {
  return cleanup.add(await startReceiver(otherwise));
}

/** The endpoint's deliveries once `count` of them are there and none is pending (newest first). */
async function settled(webhooks: Webhooks, endpointId: string, count = 1, timeoutMs = 5000): Promise<Delivery[]> {
  let last: Delivery[] = [];
  await waitUntil(
    async () => {
      last = await webhooks.deliveries(endpointId, 100);
      return last.length >= count && last.every((delivery) => delivery.status !== 'pending');
    },
    timeoutMs,
    () => `${count} settled deliveries to ${endpointId} (have ${JSON.stringify(last.map((delivery) => [delivery.status, delivery.attempts.length]))})`,
  );
  return last;
}

/** The event as its JSON body carries it. */
function bodyOf(event: WebhookEvent): unknown {
  return { id: event.id, type: event.type, occurredAt: event.occurredAt, data: event.data };
}

/** Asserts that `promise` rejects with a WebhookError with exactly this message and code. */
async function expectWebhookError(promise: Promise<unknown>, message: string, code: string): Promise<void> {
  const error = await rejectionOf(promise);
  expect(error).toBeInstanceOf(WebhookError);
  expect({ message: (error as WebhookError).message, code: (error as WebhookError).code, name: (error as WebhookError).name }).toEqual({
    message,
    code,
    name: 'WebhookError',
  });
}

const EVENT_ID = /^evt_[0-9A-HJKMNP-TV-Z]{26}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('a delivery retried until it succeeds', () => {
  it('makes exactly 4 attempts (500, 500, a timeout, 200) with the same webhook-id and a valid signature, and records them', async () => {
    const { webhooks } = await webhooksWith();
    const rx = await receiver();
    rx.script([ok(500, 'first failure'), ok(500, 'second failure'), hang], ok(200, 'thanks'));
    const { endpoint, secret } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const event = await webhooks.publish('review.created', { id: 'r9', bookId: 'b1', stars: 4, text: 'Très bien' });
    expect(event.id).toMatch(EVENT_ID);
    expect(event.occurredAt).toMatch(ISO);

    const [delivery, ...others] = await settled(webhooks, endpoint.id);
    // Nothing after the 200.
    await sleep(250);
    expect(rx.requests).toHaveLength(4);
    expect(others).toEqual([]);

    for (const request of rx.requests) {
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/hook');
      expect(request.webhookId).toBe(event.id);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['user-agent']).toBe('graphql-glassbox-webhooks');
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
      expect(JSON.parse(request.body)).toEqual({ id: event.id, type: 'review.created', occurredAt: event.occurredAt, data: { id: 'r9', bookId: 'b1', stars: 4, text: 'Très bien' } });
      expect(verifyDelivery(secret, request)).toEqual(bodyOf(event));
    }
    // The schedule: 50 ms after the first answer, 100 ms after the second, 100 ms after the timeout (300 ms).
    const at = rx.requests.map((request) => request.at);
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(45);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(95);
    expect(at[3]! - at[2]!).toBeGreaterThanOrEqual(390);

    expect(delivery).toMatchObject({ eventId: event.id, endpointId: endpoint.id, status: 'delivered', nextAttemptAt: null });
    expect(delivery!.id).toMatch(/^dlv_/);
    const attempts = delivery!.attempts;
    expect(attempts.map((attempt) => attempt.status)).toEqual([500, 500, null, 200]);
    expect(attempts.map((attempt) => attempt.error)).toEqual([null, null, 'No answer within 300 ms.', null]);
    expect(attempts.map((attempt) => attempt.responseBody)).toEqual(['first failure', 'second failure', '', 'thanks']);
    for (const attempt of attempts) {
      expect(attempt.at).toMatch(ISO);
      expect(Number.isInteger(attempt.durationMs)).toBe(true);
      expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(attempts[2]!.durationMs).toBeGreaterThanOrEqual(295);
    expect((await webhooks.get(endpoint.id))?.consecutiveFailures).toBe(0);
  });
});

describe('retries on time', () => {
  it('makes a retry when it falls due even while another endpoint\'s attempt hangs (pollMs 0: no poller)', async () => {
    const { webhooks } = await webhooksWith({ attemptTimeoutMs: 2000, retrySchedule: [0.05] });
    const slow = await receiver(hang);
    const rx = await receiver();
    rx.script([ok(500)], ok(200));
    await webhooks.register({ url: slow.url, events: ['review.deleted'] });
    const { endpoint } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    await webhooks.publish('review.deleted', { n: 0 });
    await slow.waitForRequests(1);
    await webhooks.publish('review.created', { n: 1 });
    await rx.waitForRequests(2, 3000);
    const gap = Math.round(rx.requests[1]!.at - rx.requests[0]!.at);
    // 50 ms after the 500, not when the other endpoint's attempt gives up (2 s).
    expect({ gap: gap >= 45 && gap < 500 ? 'on time' : `${gap} ms` }).toEqual({ gap: 'on time' });
    const [delivery] = await settled(webhooks, endpoint.id);
    expect(delivery!.attempts.map((attempt) => attempt.status)).toEqual([500, 200]);
  });
});

describe('a schedule used up, and endpoints disabled', () => {
  it('fails the delivery after exactly 1 + 2 attempts when the schedule has 2 retries, and counts one failure', async () => {
    const { webhooks } = await webhooksWith({ retrySchedule: [0.05, 0.05] });
    const rx = await receiver(ok(500, 'no'));
    const { endpoint, secret } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    const event = await webhooks.publish('review.created', { n: 1 });
    const [delivery] = await settled(webhooks, endpoint.id);
    await sleep(200);
    expect(rx.requests).toHaveLength(3);
    for (const request of rx.requests) expect(verifyDelivery(secret, request)).toEqual(bodyOf(event));
    expect(delivery).toMatchObject({ eventId: event.id, status: 'failed', nextAttemptAt: null });
    expect(delivery!.attempts.map((attempt) => [attempt.status, attempt.error, attempt.responseBody])).toEqual([
      [500, null, 'no'],
      [500, null, 'no'],
      [500, null, 'no'],
    ]);
    expect(await webhooks.get(endpoint.id)).toMatchObject({ consecutiveFailures: 1, disabled: null });
  });

  it('disables the endpoint after disableAfterFailures failed deliveries in a row; publishes then skip it; enable() resets it', async () => {
    const { webhooks } = await webhooksWith({ retrySchedule: [0.02], disableAfterFailures: 2 });
    const rx = await receiver(ok(503));
    const { endpoint, secret } = await webhooks.register({ url: rx.url, events: ['review.created'] });

    await webhooks.publish('review.created', { n: 1 });
    await settled(webhooks, endpoint.id, 1);
    expect(await webhooks.get(endpoint.id)).toMatchObject({ consecutiveFailures: 1, disabled: null });

    await webhooks.publish('review.created', { n: 2 });
    const afterTwo = await settled(webhooks, endpoint.id, 2);
    expect(afterTwo.map((delivery) => [delivery.status, delivery.attempts.length])).toEqual([
      ['failed', 2],
      ['failed', 2],
    ]);
    const disabled = await webhooks.get(endpoint.id);
    expect(disabled?.consecutiveFailures).toBe(2);
    expect(disabled?.disabled?.reason).toBe('2 deliveries in a row failed.');
    expect(disabled?.disabled?.at).toMatch(ISO);
    expect(rx.requests).toHaveLength(4);

    // Disabled: a publish makes no delivery for it, and nothing is sent.
    await webhooks.publish('review.created', { n: 3 });
    await sleep(200);
    expect(await webhooks.deliveries(endpoint.id)).toHaveLength(2);
    expect(rx.requests).toHaveLength(4);

    const enabled = await webhooks.enable(endpoint.id);
    expect(enabled).toMatchObject({ id: endpoint.id, disabled: null, consecutiveFailures: 0 });
    expect(await webhooks.get(endpoint.id)).toEqual(enabled);
    rx.script([], ok(204, ''));
    const event = await webhooks.publish('review.created', { n: 4 });
    const [latest] = await settled(webhooks, endpoint.id, 3);
    expect(latest).toMatchObject({ eventId: event.id, status: 'delivered' });
    expect(rx.requests).toHaveLength(5);
    expect(verifyDelivery(secret, rx.requests[4]!)).toEqual(bodyOf(event));
  });

  it('counts two deliveries that fail at the same time as two failures in a row (disableAfterFailures: 2)', async () => {
    // Both attempts are in flight together (the receiver answers 500 after 150 ms); each outcome
    // must add to the endpoint's count as it is, not as it was when the attempt started.
    const { webhooks } = await webhooksWith({ retrySchedule: [], disableAfterFailures: 2 });
    const rx = await receiver(ok(500, 'busy', 150));
    const { endpoint } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    await Promise.all([webhooks.publish('review.created', { n: 1 }), webhooks.publish('review.created', { n: 2 })]);
    const deliveries = await settled(webhooks, endpoint.id, 2);
    expect(deliveries.map((delivery) => delivery.status)).toEqual(['failed', 'failed']);
    expect(rx.maxOpen).toBe(2);
    const view = await webhooks.get(endpoint.id);
    expect({ failures: view?.consecutiveFailures, reason: view?.disabled?.reason ?? null }).toEqual({ failures: 2, reason: '2 deliveries in a row failed.' });
  });
});

describe('an endpoint removed while an attempt to it is in flight', () => {
  it('stays removed once the attempt ends, and nothing more is sent to it', async () => {
    const { webhooks } = await webhooksWith({ retrySchedule: [] });
    const rx = await receiver(ok(500, 'late', 300));
    const { endpoint } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    await webhooks.publish('review.created', { n: 1 });
    await rx.waitForRequests(1);
    expect(await webhooks.remove(endpoint.id)).toBe(true);
    await sleep(600);
    expect(await webhooks.list()).toEqual([]);
    await webhooks.publish('review.created', { n: 2 });
    await sleep(100);
    expect(rx.requests).toHaveLength(1);
  });
});

describe('410 Gone', () => {
  it('fails the delivery after one attempt and disables the endpoint', async () => {
    const { webhooks } = await webhooksWith();
    const rx = await receiver(ok(410, 'gone'));
    const { endpoint } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    const event = await webhooks.publish('review.created', { n: 1 });
    const [delivery] = await settled(webhooks, endpoint.id);
    await sleep(250);
    expect(rx.requests).toHaveLength(1);
    expect(delivery).toMatchObject({ eventId: event.id, status: 'failed', nextAttemptAt: null });
    expect(delivery!.attempts.map((attempt) => [attempt.status, attempt.error, attempt.responseBody])).toEqual([[410, null, 'gone']]);
    const view = await webhooks.get(endpoint.id);
    expect(view?.disabled?.reason).toBe('The endpoint answered 410 Gone.');
    expect(view?.disabled?.at).toMatch(ISO);
    await webhooks.publish('review.created', { n: 2 });
    await sleep(150);
    expect(rx.requests).toHaveLength(1);
    expect(await webhooks.deliveries(endpoint.id)).toHaveLength(1);
  });
});

describe('redirects', () => {
  it('records a 302 as a failed attempt naming the Location, retries, and never calls the Location', async () => {
    const { webhooks } = await webhooksWith();
    const target = await receiver();
    const rx = await receiver();
    rx.script([{ kind: 'redirect', location: target.url }], ok(200));
    const { endpoint, secret } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    const event = await webhooks.publish('review.created', { n: 1 });
    const [delivery] = await settled(webhooks, endpoint.id);
    expect(delivery!.status).toBe('delivered');
    expect(delivery!.attempts.map((attempt) => [attempt.status, attempt.error])).toEqual([
      [302, `Redirects are not followed (Location: ${target.url}).`],
      [200, null],
    ]);
    expect(rx.requests).toHaveLength(2);
    for (const request of rx.requests) expect(verifyDelivery(secret, request)).toEqual(bodyOf(event));
    await sleep(100);
    expect(target.requests).toHaveLength(0);
  });

  it.each([301, 303, 307, 308])('treats %i like any failure: retried until the schedule is used up, the Location never called', async (status) => {
    const { webhooks } = await webhooksWith();
    const target = await receiver();
    const rx = await receiver({ kind: 'redirect', location: target.url, status });
    const { endpoint } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    await webhooks.publish('review.created', { n: 1 });
    const [delivery] = await settled(webhooks, endpoint.id);
    expect(delivery!.status).toBe('failed');
    expect(delivery!.attempts.map((attempt) => [attempt.status, attempt.error])).toEqual(
      Array.from({ length: 4 }, () => [status, `Redirects are not followed (Location: ${target.url}).`]),
    );
    expect(rx.requests).toHaveLength(4);
    expect(target.requests).toHaveLength(0);
  });
});

describe('connections that fail', () => {
  it('records a reset connection as status null, "The connection failed: ECONNRESET.", and retries', async () => {
    const { webhooks } = await webhooksWith();
    const rx = await receiver();
    rx.script([reset], ok(200));
    const { endpoint, secret } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    const event = await webhooks.publish('review.created', { n: 1 });
    const [delivery] = await settled(webhooks, endpoint.id);
    expect(delivery!.status).toBe('delivered');
    expect(delivery!.attempts.map((attempt) => [attempt.status, attempt.error, attempt.responseBody])).toEqual([
      [null, 'The connection failed: ECONNRESET.', ''],
      [200, null, 'ok'],
    ]);
    expect(rx.requests.map((request) => request.webhookId)).toEqual([event.id, event.id]);
    for (const request of rx.requests) expect(verifyDelivery(secret, request)).toEqual(bodyOf(event));
  });

  it('records a refused connection (a closed port) as status null, "The connection failed: ECONNREFUSED.", retried to the end', async () => {
    const { webhooks } = await webhooksWith();
    const port = await closedPort();
    const { endpoint } = await webhooks.register({ url: `http://127.0.0.1:${port}/hook`, events: ['review.created'] });
    await webhooks.publish('review.created', { n: 1 });
    const [delivery] = await settled(webhooks, endpoint.id);
    expect(delivery!.status).toBe('failed');
    expect(delivery!.attempts.map((attempt) => [attempt.status, attempt.error, attempt.responseBody])).toEqual(
      Array.from({ length: 4 }, () => [null, 'The connection failed: ECONNREFUSED.', '']),
    );
    expect((await webhooks.get(endpoint.id))?.consecutiveFailures).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------
// The address checked at every attempt. An endpoint registered while an allowance let it through
// is judged again by the rule of the instance sending (its `allowedHosts`, its `production`);
// a restart is a new instance on the same store.

const REDIS_URL = process.env.REDIS_URL ?? '';

/** Reopens the same store, as a restart does: a directory for the file store, a key prefix for Redis. */
type Reopen = () => WebhookStore;

function fileStoreKept(): Reopen {
  const { dir, remove } = tempDir();
  cleanup.defer(remove);
  return () => new FileStore({ dir, fsync: false });
}

function redisStoreKept(): Reopen {
  const keyPrefix = `webhooks-test:${process.pid}:${randomUUID().slice(0, 8)}:`;
  cleanup.defer(async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
    } finally {
      redis.disconnect();
    }
  });
  return () => new RedisWebhookStore({ url: REDIS_URL, keyPrefix });
}

const STORES: ReadonlyArray<[string, () => Reopen]> = REDIS_URL === '' ? [['file store', fileStoreKept]] : [['file store', fileStoreKept], ['Redis store', redisStoreKept]];
if (REDIS_URL === '') console.log('webhooks-delivery.test.ts: the address checks run on the file store only: REDIS_URL is not set.');

/** A started instance over the store `reopen` gives, with FAST and `overrides`; closed after the test unless the test closes it first. */
async function instanceOn(reopen: Reopen, overrides: Partial<WebhooksOptions>): Promise<{ webhooks: Webhooks; close(): Promise<void> }> {
  const webhooks = createWebhooks({ ...FAST, store: reopen(), ...overrides });
  await webhooks.start();
  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => (closing ??= webhooks.close());
  cleanup.defer(close);
  return { webhooks, close };
}

/** A receiver on `::` (dual-stack: 127.0.0.1, ::1 and ::ffff:127.0.0.1 all reach it) that counts connections and requests, and answers 200. */
async function loopbackCounter(): Promise<{ port: number; readonly connections: number; readonly requests: number; close(): Promise<void> }> {
  let connections = 0;
  let requests = 0;
  const server = http.createServer((request, response) => {
    requests++;
    request.resume();
    request.on('end', () => response.end('ok'));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  return cleanup.add({
    port: (server.address() as AddressInfo).port,
    get connections() {
      return connections;
    },
    get requests() {
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
}

/** Waits until the endpoint is disabled and its delivery of `eventId` has `attempts` attempts recorded; that delivery. */
async function refusedDelivery(webhooks: Webhooks, endpointId: string, eventId: string, attempts: number): Promise<Delivery> {
  let found: Delivery | undefined;
  await waitUntil(
    async () => {
      found = (await webhooks.deliveries(endpointId, 100)).find((delivery) => delivery.eventId === eventId);
      return found !== undefined && found.attempts.length === attempts && ((await webhooks.get(endpointId))?.disabled ?? null) !== null;
    },
    5000,
    () => `${endpointId} disabled, with ${attempts} attempts of ${eventId} recorded (have ${JSON.stringify(found?.attempts ?? null)})`,
  );
  return found as Delivery;
}

const LOOPBACK_REFUSED = (host: string): string => `The callback URL's host ${host} is a loopback address; only public addresses may be called (to allow this one, add ${host} to the webhooks' allowedHosts option).`;

describe('the address checked at every attempt', () => {
  describe.each(STORES)('on the %s', (_name, kept) => {
    it('disables an endpoint on 127.0.0.1 once an instance without the allowance takes over: its retry is not sent, the reason shows', async () => {
      const reopen = kept();
      const rx = await receiver();
      rx.script([ok(500, 'busy')], ok(200));
      // The retry falls due a second after the first attempt: after the restart.
      const allowed = await instanceOn(reopen, { allowedHosts: ['127.0.0.1'], retrySchedule: [1] });
      const { endpoint } = await allowed.webhooks.register({ url: rx.url, events: ['review.created'] });
      const event = await allowed.webhooks.publish('review.created', { n: 1 });
      await waitUntil(async () => (await allowed.webhooks.deliveries(endpoint.id))[0]?.attempts.length === 1, 2000, 'the first attempt recorded');
      await allowed.close();

      const strict = await instanceOn(reopen, { allowedHosts: [] });
      const delivery = await refusedDelivery(strict.webhooks, endpoint.id, event.id, 2);
      expect(rx.requests).toHaveLength(1);
      expect({ status: delivery.status, attempts: delivery.attempts.map((attempt) => [attempt.status, attempt.error, attempt.responseBody, attempt.durationMs]) }).toEqual({
        status: 'pending',
        attempts: [
          [500, null, 'busy', delivery.attempts[0]!.durationMs],
          [null, LOOPBACK_REFUSED('127.0.0.1'), '', 0],
        ],
      });
      const view = await strict.webhooks.get(endpoint.id);
      expect(view).toMatchObject({ disabled: { reason: LOOPBACK_REFUSED('127.0.0.1') }, consecutiveFailures: 0 });
      expect(view?.disabled?.at).toMatch(ISO);
      // Disabled: a publish makes no delivery for it, and nothing is sent.
      await strict.webhooks.publish('review.created', { n: 2 });
      await sleep(150);
      expect(rx.requests).toHaveLength(1);
      expect(await strict.webhooks.deliveries(endpoint.id)).toHaveLength(1);
    });

    it('keeps the refused delivery waiting: enabled without the allowance it is refused again, enabled under it it is sent', async () => {
      const reopen = kept();
      const rx = await receiver();
      const first = await instanceOn(reopen, { allowedHosts: ['127.0.0.1'] });
      const { endpoint, secret } = await first.webhooks.register({ url: rx.url, events: ['review.created'] });
      await first.close();

      const strict = await instanceOn(reopen, { allowedHosts: [] });
      const event = await strict.webhooks.publish('review.created', { n: 1 });
      await refusedDelivery(strict.webhooks, endpoint.id, event.id, 1);
      expect(await strict.webhooks.enable(endpoint.id)).toMatchObject({ disabled: null });
      const again = await refusedDelivery(strict.webhooks, endpoint.id, event.id, 2);
      expect(again.attempts.map((attempt) => [attempt.status, attempt.error])).toEqual([
        [null, LOOPBACK_REFUSED('127.0.0.1')],
        [null, LOOPBACK_REFUSED('127.0.0.1')],
      ]);
      expect((await strict.webhooks.get(endpoint.id))?.disabled?.reason).toBe(LOOPBACK_REFUSED('127.0.0.1'));
      expect(rx.requests).toHaveLength(0);
      await strict.close();

      const allowedAgain = await instanceOn(reopen, { allowedHosts: ['127.0.0.1'] });
      await allowedAgain.webhooks.enable(endpoint.id);
      const [request] = await rx.waitForRequests(1);
      expect(verifyDelivery(secret, request!)).toEqual(bodyOf(event));
      const [delivered] = await settled(allowedAgain.webhooks, endpoint.id);
      expect(delivered).toMatchObject({ eventId: event.id, status: 'delivered' });
    });
  });

  it.each([
    ['http://127.0.0.1:PORT/hook', 'http://127.0.0.1:PORT/hook', '127.0.0.1'],
    ['http://[::1]:PORT/hook', 'http://[::1]:PORT/hook', '::1'],
    ['http://[::ffff:127.0.0.1]:PORT/hook', 'http://[::ffff:7f00:1]:PORT/hook', '::ffff:7f00:1'],
    ['http://2130706433:PORT/hook', 'http://127.0.0.1:PORT/hook', '127.0.0.1'],
  ])('refuses %s once its allowance is gone: no connection reaches the receiver, the endpoint is disabled', async (written, stored, host) => {
    const reopen = fileStoreKept();
    const rx = await loopbackCounter();
    const url = written.replace('PORT', String(rx.port));
    // Under the allowance, this spelling reaches the receiver: what follows is the check, not the network.
    const allowed = await instanceOn(reopen, { allowedHosts: ['127.0.0.1', '::1'] });
    const { endpoint } = await allowed.webhooks.register({ url, events: ['review.created'] });
    expect(endpoint.url).toBe(stored.replace('PORT', String(rx.port)));
    await allowed.webhooks.publish('review.created', { n: 1 });
    await settled(allowed.webhooks, endpoint.id);
    await allowed.close();
    const before = { connections: rx.connections, requests: rx.requests };
    expect(before.requests).toBe(1);

    const strict = await instanceOn(reopen, { allowedHosts: [] });
    const event = await strict.webhooks.publish('review.created', { n: 2 });
    const delivery = await refusedDelivery(strict.webhooks, endpoint.id, event.id, 1);
    expect(delivery.attempts.map((attempt) => [attempt.status, attempt.error, attempt.responseBody])).toEqual([[null, LOOPBACK_REFUSED(host), '']]);
    expect((await strict.webhooks.get(endpoint.id))?.disabled?.reason).toBe(LOOPBACK_REFUSED(host));
    await sleep(100);
    expect({ connections: rx.connections, requests: rx.requests }).toEqual(before);
  });

  it('disables an http endpoint once the server runs in production: "The callback URL must use https in production, not http."', async () => {
    const reopen = fileStoreKept();
    const rx = await receiver();
    const development = await instanceOn(reopen, { production: false });
    const { endpoint } = await development.webhooks.register({ url: rx.url, events: ['review.created'] });
    await development.close();
    // The allowance stays: the scheme alone is refused.
    const production = await instanceOn(reopen, { production: true });
    const event = await production.webhooks.publish('review.created', { n: 1 });
    await refusedDelivery(production.webhooks, endpoint.id, event.id, 1);
    expect((await production.webhooks.get(endpoint.id))?.disabled?.reason).toBe('The callback URL must use https in production, not http.');
    await sleep(100);
    expect(rx.requests).toHaveLength(0);
  });

  /** A resolver that answers `address` for hooks.example.test, and nothing for any other name. */
  function resolverTo(answer: { address: string }): LookupFunction {
    return (hostname, options, callback) => {
      setImmediate(() => {
        if (hostname !== 'hooks.example.test') callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', undefined);
        else if (options.all === true) callback(null, [{ address: answer.address, family: 4 }]);
        else callback(null, answer.address, 4);
      });
    };
  }

  it('fails, and does not disable, an attempt whose name resolves to a private address at connect time (DNS rebinding): retried, nothing sent', async () => {
    const rx = await receiver();
    const answer = { address: '93.184.216.34' };
    // FAST allows 127.0.0.1 as a host; that does not let a name resolve there.
    const { webhooks } = await webhooksWith({ lookup: resolverTo(answer) });
    const { endpoint } = await webhooks.register({ url: `http://hooks.example.test:${rx.port}/hook`, events: ['review.created'] });
    answer.address = '127.0.0.1';
    await webhooks.publish('review.created', { n: 1 });
    const [delivery] = await settled(webhooks, endpoint.id);
    expect(delivery!.status).toBe('failed');
    expect(delivery!.attempts.map((attempt) => [attempt.status, attempt.error, attempt.responseBody])).toEqual(
      Array.from({ length: 4 }, () => [null, 'Refused to connect to 127.0.0.1 (a loopback address) for hooks.example.test.', '']),
    );
    expect(await webhooks.get(endpoint.id)).toMatchObject({ disabled: null, consecutiveFailures: 1 });
    expect(rx.requests).toHaveLength(0);
  });

  it('connects through the same resolver when the name itself is allowlisted', async () => {
    const rx = await receiver();
    const { webhooks } = await webhooksWith({ lookup: resolverTo({ address: '127.0.0.1' }), allowedHosts: ['hooks.example.test'] });
    const { endpoint, secret } = await webhooks.register({ url: `http://hooks.example.test:${rx.port}/hook`, events: ['review.created'] });
    const event = await webhooks.publish('review.created', { n: 1 });
    const [delivery] = await settled(webhooks, endpoint.id);
    expect(delivery!.status).toBe('delivered');
    expect(rx.requests).toHaveLength(1);
    expect(verifyDelivery(secret, rx.requests[0]!)).toEqual(bodyOf(event));
  });
});

describe('what is read of an answer', () => {
  it('reads at most 1 KB of an endless 200 answer and moves on: delivered at once, and the next event too', async () => {
    const { webhooks } = await webhooksWith({ attemptTimeoutMs: 3000 });
    const rx = await receiver();
    rx.script([{ kind: 'endless', chunk: 'y'.repeat(300) }], ok(200, 'second'));
    const { endpoint, secret } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    const first = await webhooks.publish('review.created', { n: 1 });
    const [delivery] = await settled(webhooks, endpoint.id, 1, 2500);
    expect(delivery).toMatchObject({ eventId: first.id, status: 'delivered' });
    const [attempt] = delivery!.attempts;
    expect(attempt!.status).toBe(200);
    expect(attempt!.error).toBeNull();
    // Not a timeout: the answer was cut at 1 KB.
    expect(attempt!.durationMs).toBeLessThan(2000);
    expect(Buffer.byteLength(attempt!.responseBody)).toBeLessThanOrEqual(1024);
    expect(attempt!.responseBody).toMatch(/^y+$/);

    const second = await webhooks.publish('review.created', { n: 2 });
    const [latest] = await settled(webhooks, endpoint.id, 2, 2500);
    expect(latest).toMatchObject({ eventId: second.id, status: 'delivered' });
    expect(latest!.attempts.map((each) => [each.status, each.responseBody])).toEqual([[200, 'second']]);
    expect(rx.requests.map((request) => request.webhookId)).toEqual([first.id, second.id]);
    expect(verifyDelivery(secret, rx.requests[1]!)).toEqual(bodyOf(second));
  });

  it('keeps exactly the first 1,024 bytes of a 5 KB answer (ASCII) to a failed attempt', async () => {
    const { webhooks } = await webhooksWith({ retrySchedule: [] });
    const body = Array.from({ length: 5120 }, (_, index) => String.fromCharCode(33 + (index % 90))).join('');
    const rx = await receiver(ok(500, body));
    const { endpoint } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    await webhooks.publish('review.created', { n: 1 });
    const [delivery] = await settled(webhooks, endpoint.id);
    const [attempt] = delivery!.attempts;
    expect(attempt!.status).toBe(500);
    expect(attempt!.responseBody).toHaveLength(1024);
    expect(attempt!.responseBody).toBe(body.slice(0, 1024));
  });

  it('keeps at most 1,024 bytes of a multi-byte answer, with no broken character', async () => {
    // '€' is 3 bytes in UTF-8: 1,024 bytes end inside the 342nd one.
    const { webhooks } = await webhooksWith({ retrySchedule: [] });
    const rx = await receiver(ok(500, '€'.repeat(2000)));
    const { endpoint } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    await webhooks.publish('review.created', { n: 1 });
    const [delivery] = await settled(webhooks, endpoint.id);
    const kept = delivery!.attempts[0]!.responseBody;
    expect({ bytes: Buffer.byteLength(kept) <= 1024, replacement: kept.includes('\uFFFD'), onlyEuros: /^€+$/.test(kept) }).toEqual({
      bytes: true,
      replacement: false,
      onlyEuros: true,
    });
  });
});

describe('concurrency per endpoint', () => {
  it('lets a healthy endpoint receive 20 events at once while a hanging one holds only its own 2 places', async () => {
    const timeout = 1000;
    const { webhooks } = await webhooksWith({ concurrencyPerEndpoint: 2, attemptTimeoutMs: timeout, retrySchedule: [] });
    const slow = await receiver(hang);
    const healthy = await receiver(ok(200));
    const slowEndpoint = await webhooks.register({ url: slow.url, events: ['review.created'] });
    const healthyEndpoint = await webhooks.register({ url: healthy.url, events: ['review.created'] });
    const started = performance.now();
    const events = await Promise.all(Array.from({ length: 20 }, (_, n) => webhooks.publish('review.created', { n })));
    await healthy.waitForRequests(20, timeout);
    const elapsed = performance.now() - started;
    // Well before the first of the slow endpoint's attempts times out.
    expect(elapsed).toBeLessThan(timeout / 2);
    expect(slow.open).toBe(2);
    expect(new Set(healthy.requests.map((request) => request.webhookId))).toEqual(new Set(events.map((event) => event.id)));
    for (const request of healthy.requests) expect(verifyDelivery(healthyEndpoint.secret, request)).toEqual(JSON.parse(request.body));
    const delivered = await settled(webhooks, healthyEndpoint.endpoint.id, 20);
    expect(delivered.map((delivery) => delivery.status)).toEqual(Array.from({ length: 20 }, () => 'delivered'));

    // The slow endpoint's first two attempts time out; the next two take their places, never more.
    await slow.waitForRequests(4, timeout * 2);
    expect(slow.maxOpen).toBe(2);
    expect(slow.open).toBeLessThanOrEqual(2);
    const slowDeliveries = await webhooks.deliveries(slowEndpoint.endpoint.id, 100);
    expect(slowDeliveries.filter((delivery) => delivery.status === 'failed').map((delivery) => delivery.attempts.map((attempt) => attempt.error))).toEqual([
      [`No answer within ${timeout} ms.`],
      [`No answer within ${timeout} ms.`],
    ]);
  });
  it('isolates two endpoints on the same host and port (different paths): the hanging one does not hold the healthy one back', async () => {
    // Many receivers share a host (one SaaS, a path per customer): places are per endpoint, not per host.
    const timeout = 1000;
    const { webhooks } = await webhooksWith({ concurrencyPerEndpoint: 2, attemptTimeoutMs: timeout, retrySchedule: [] });
    const rx = await receiver();
    rx.respond((request) => (request.path === '/slow' ? hang : ok(200)));
    await webhooks.register({ url: `${rx.origin}/slow`, events: ['review.created'] });
    const healthy = await webhooks.register({ url: `${rx.origin}/fast`, events: ['review.created'] });
    const started = performance.now();
    await Promise.all(Array.from({ length: 20 }, (_, n) => webhooks.publish('review.created', { n })));
    const fast = () => rx.requests.filter((request) => request.path === '/fast').length;
    await waitUntil(() => fast() >= 20, timeout, 'twenty requests on /fast').catch(() => undefined);
    const elapsed = performance.now() - started;
    expect({ fastRequests: fast() }).toEqual({ fastRequests: 20 });
    const delivered = await settled(webhooks, healthy.endpoint.id, 20, timeout * 3);
    expect({ fastEnough: elapsed < timeout / 2, statuses: [...new Set(delivered.map((delivery) => delivery.status))] }).toEqual({ fastEnough: true, statuses: ['delivered'] });
  });
});

describe('secret rotation', () => {
  it('signs with the old and the new secret during the grace period (both verify, a stranger\'s does not)', async () => {
    const { webhooks } = await webhooksWith();
    const rx = await receiver();
    const { endpoint, secret: old } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    const rotated = await webhooks.rotateSecret(endpoint.id, { graceSeconds: 60 });
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(old);
    expect(rotated.endpoint).toEqual(endpoint);

    const event = await webhooks.publish('review.created', { n: 1 });
    await rx.waitForRequests(1);
    const [request] = rx.requests;
    expect(String(request!.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]{43}= v1,[A-Za-z0-9+/]{43}=$/);
    expect(verifyDelivery(old, request!)).toEqual(bodyOf(event));
    expect(verifyDelivery(rotated.secret, request!)).toEqual(bodyOf(event));
    expect(verificationFailure(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, request!)).toBe('No matching signature found');
  });

  it('signs with the new secret only after a rotation without grace (the old one fails to verify)', async () => {
    const { webhooks } = await webhooksWith();
    const rx = await receiver();
    const { endpoint, secret: old } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    const { secret: fresh } = await webhooks.rotateSecret(endpoint.id, { graceSeconds: 0 });
    const event = await webhooks.publish('review.created', { n: 1 });
    await rx.waitForRequests(1);
    const request = rx.requests[0]!;
    expect(String(request.headers['webhook-signature'])).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verifyDelivery(fresh, request)).toEqual(bodyOf(event));
    expect(verificationFailure(old, request)).toBe('No matching signature found');
  });

  it('keeps an earlier secret until its own grace ends when a later rotation has none', async () => {
    const { webhooks } = await webhooksWith();
    const rx = await receiver();
    const { endpoint, secret: first } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    const { secret: second } = await webhooks.rotateSecret(endpoint.id, { graceSeconds: 60 });
    const { secret: third } = await webhooks.rotateSecret(endpoint.id, { graceSeconds: 0 });
    await webhooks.publish('review.created', { n: 1 });
    await rx.waitForRequests(1);
    const request = rx.requests[0]!;
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect([first, second, third].map((secret) => verificationFailure(secret, request))).toEqual([null, 'No matching signature found', null]);
  });

  it('refuses a negative grace and an unknown endpoint', async () => {
    const { webhooks } = await webhooksWith();
    const { endpoint } = await webhooks.register({ url: 'http://127.0.0.1:9/hook', events: ['review.created'] });
    await expectWebhookError(webhooks.rotateSecret(endpoint.id, { graceSeconds: -1 }), 'graceSeconds must be a number of seconds, got a number.', 'BAD_USER_INPUT');
    await expectWebhookError(webhooks.rotateSecret('ep_missing'), 'No webhook endpoint has id "ep_missing".', 'NOT_FOUND');
  });

  it('keeps a rotation made while an attempt is in flight (the attempt that ends afterwards does not bring the old secret back)', async () => {
    // The endpoint has one failure on its count, so a success writes the endpoint back (count 0):
    // it must write the endpoint as it is by then, with the new secret.
    const { webhooks } = await webhooksWith({ retrySchedule: [] });
    const rx = await receiver();
    rx.script([ok(500), ok(200, 'slow ok', 300)], ok(200));
    const { endpoint, secret: old } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    await webhooks.publish('review.created', { n: 1 });
    await settled(webhooks, endpoint.id, 1);
    expect((await webhooks.get(endpoint.id))?.consecutiveFailures).toBe(1);

    await webhooks.publish('review.created', { n: 2 });
    await rx.waitForRequests(2);
    const { secret: fresh } = await webhooks.rotateSecret(endpoint.id, { graceSeconds: 0 });
    await settled(webhooks, endpoint.id, 2);

    const third = await webhooks.publish('review.created', { n: 3 });
    await rx.waitForRequests(3);
    const request = rx.requests[2]!;
    expect(request.webhookId).toBe(third.id);
    expect({ fresh: verificationFailure(fresh, request), old: verificationFailure(old, request) }).toEqual({ fresh: null, old: 'No matching signature found' });
  });
});

describe('redelivery', () => {
  it('sends a kept event again, with the same webhook-id, and answers how many deliveries it made', async () => {
    const { webhooks } = await webhooksWith();
    const rx = await receiver();
    const { endpoint, secret } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    const other = await webhooks.register({ url: `${rx.origin}/other`, events: ['review.deleted'] });
    const event = await webhooks.publish('review.created', { n: 1 });
    await settled(webhooks, endpoint.id, 1);

    expect(await webhooks.redeliver(event.id)).toBe(1);
    const deliveries = await settled(webhooks, endpoint.id, 2);
    expect(deliveries.map((delivery) => [delivery.eventId, delivery.status])).toEqual([
      [event.id, 'delivered'],
      [event.id, 'delivered'],
    ]);
    expect(deliveries[0]!.id).not.toBe(deliveries[1]!.id);
    expect(rx.requests.map((request) => [request.path, request.webhookId])).toEqual([
      ['/hook', event.id],
      ['/hook', event.id],
    ]);
    expect(verifyDelivery(secret, rx.requests[1]!)).toEqual(bodyOf(event));

    // To one endpoint, named.
    expect(await webhooks.redeliver(event.id, endpoint.id)).toBe(1);
    await settled(webhooks, endpoint.id, 3);
    expect(await webhooks.deliveries(other.endpoint.id)).toEqual([]);

    await expectWebhookError(webhooks.redeliver('evt_01ARZ3NDEKTSV4RRFFQ69G5FAV'), 'No event with id "evt_01ARZ3NDEKTSV4RRFFQ69G5FAV" is kept.', 'NOT_FOUND');
    await expectWebhookError(webhooks.redeliver(event.id, 'ep_missing'), 'No webhook endpoint has id "ep_missing".', 'NOT_FOUND');
    expect(rx.requests).toHaveLength(3);
  });

  it('makes no delivery to a disabled endpoint (answers 0)', async () => {
    const { webhooks } = await webhooksWith();
    const rx = await receiver(ok(410));
    const { endpoint } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    const event = await webhooks.publish('review.created', { n: 1 });
    await settled(webhooks, endpoint.id, 1);
    expect(await webhooks.redeliver(event.id)).toBe(0);
    await sleep(100);
    expect(rx.requests).toHaveLength(1);
  });
});

describe('registration refusals', () => {
  const TEN_KB = `https://example.com/${'a'.repeat(10_240 - 20)}`;
  const URL_CASES: Array<[string, string, string]> = [
    ['text that is no URL', 'not a url', 'The callback URL is not a valid absolute URL.'],
    ['a relative URL', '/relative/hook', 'The callback URL is not a valid absolute URL.'],
    ['a javascript: URL', 'javascript:alert(1)', 'The callback URL must use https or http, not javascript.'],
    ['a file: URL', 'file:///etc/passwd', 'The callback URL must use https or http, not file.'],
    ['a 10 KB URL', TEN_KB, 'The callback URL is 10,240 characters long; at most 2,048 are allowed.'],
    ['a private address not allowlisted', 'http://10.0.0.1/hook', "The callback URL's host 10.0.0.1 is a private address; only public addresses may be called (to allow this one, add 10.0.0.1 to the webhooks' allowedHosts option)."],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data', "The callback URL's host 169.254.169.254 is a cloud metadata address; only public addresses may be called (to allow this one, add 169.254.169.254 to the webhooks' allowedHosts option)."],
    ['a URL with credentials', 'http://user:pw@127.0.0.1/hook', 'The callback URL must not contain a username or password.'],
    ['an empty URL', '', 'The callback URL is empty.'],
  ];

  it.each(URL_CASES)('refuses %s with WEBHOOK_INVALID_URL and the exact reason', async (_label, url, message) => {
    const { webhooks } = await webhooksWith();
    await expectWebhookError(webhooks.register({ url, events: ['review.created'] }), message, 'WEBHOOK_INVALID_URL');
    expect(await webhooks.list()).toEqual([]);
  });

  it('checks that the 10 KB case really is 10,240 characters', () => {
    expect(TEN_KB).toHaveLength(10_240);
  });

  it('refuses http in production, and a URL that is not a string', async () => {
    const production = await webhooksWith({ production: true });
    await expectWebhookError(production.webhooks.register({ url: 'http://127.0.0.1:9/hook', events: ['review.created'] }), 'The callback URL must use https in production, not http.', 'WEBHOOK_INVALID_URL');
    await expectWebhookError(
      production.webhooks.register({ url: 42 as unknown as string, events: ['review.created'] }),
      'The callback URL must be a string, got a number.',
      'WEBHOOK_INVALID_URL',
    );
    await expectWebhookError(production.webhooks.register(null as unknown as { url: string; events: string[] }), 'register needs { url, events }.', 'BAD_USER_INPUT');
  });

  it('refuses unknown event types, an empty list, and a description over 500 characters', async () => {
    const { webhooks } = await webhooksWith();
    const url = 'http://127.0.0.1:9/hook';
    await expectWebhookError(
      webhooks.register({ url, events: ['review.updated'] }),
      'Unknown event type "review.updated"; the types are: review.created, review.deleted.',
      'WEBHOOK_UNKNOWN_EVENT_TYPE',
    );
    await expectWebhookError(
      webhooks.register({ url, events: ['review.created', 'a.b', 'c.d'] }),
      'Unknown event types "a.b", "c.d"; the types are: review.created, review.deleted.',
      'WEBHOOK_UNKNOWN_EVENT_TYPE',
    );
    await expectWebhookError(webhooks.register({ url, events: [] }), 'events must be a non-empty list of event types.', 'BAD_USER_INPUT');
    await expectWebhookError(webhooks.register({ url, events: 'review.created' as unknown as string[] }), 'events must be a non-empty list of event types.', 'BAD_USER_INPUT');
    await expectWebhookError(
      webhooks.register({ url, events: ['review.created'], description: 'd'.repeat(501) }),
      'description must be a string of at most 500 characters.',
      'BAD_USER_INPUT',
    );
    expect(await webhooks.list()).toEqual([]);
    const { endpoint } = await webhooks.register({ url, events: ['review.created', 'review.created'], description: 'd'.repeat(500) });
    expect(endpoint).toMatchObject({ url, events: ['review.created'], description: 'd'.repeat(500), disabled: null, consecutiveFailures: 0 });
  });
});

describe('option refusals', () => {
  const { dir, remove } = tempDir();
  afterAll(remove);
  const store = new FileStore({ dir });
  const make = (options: Partial<WebhooksOptions>) => () => createWebhooks({ ...FAST, store, ...options } as WebhooksOptions);
  const EVENT_TYPES_MESSAGE = (got: string) => `eventTypes must be a non-empty list of dotted lower-case names like "review.created", got ${got}.`;

  it.each<[string, unknown, string]>([
    ['eventTypes', undefined, EVENT_TYPES_MESSAGE('undefined')],
    ['eventTypes', [], EVENT_TYPES_MESSAGE('an array')],
    ['eventTypes', ['Review.Created'], EVENT_TYPES_MESSAGE('an array')],
    ['eventTypes', ['review'], EVENT_TYPES_MESSAGE('an array')],
    ['eventTypes', 'review.created', EVENT_TYPES_MESSAGE('a string')],
    ['retrySchedule', [5, -1], 'retrySchedule must be a list of delays in seconds (numbers, 0 or more), got an array.'],
    ['retrySchedule', [Number.NaN], 'retrySchedule must be a list of delays in seconds (numbers, 0 or more), got an array.'],
    ['retrySchedule', '5,10', 'retrySchedule must be a list of delays in seconds (numbers, 0 or more), got a string.'],
    ['jitter', 1, 'jitter must be a number from 0 to below 1, got a number.'],
    ['jitter', -0.1, 'jitter must be a number from 0 to below 1, got a number.'],
    ['jitter', '0.1', 'jitter must be a number from 0 to below 1, got a string.'],
    ['attemptTimeoutMs', 0, 'attemptTimeoutMs must be a positive whole number, got 0.'],
    ['attemptTimeoutMs', 1.5, 'attemptTimeoutMs must be a positive whole number, got 1.5.'],
    ['attemptTimeoutMs', '300', 'attemptTimeoutMs must be a positive whole number, got "300".'],
    ['concurrencyPerEndpoint', 0, 'concurrencyPerEndpoint must be a positive whole number, got 0.'],
    ['disableAfterFailures', -1, 'disableAfterFailures must be a positive whole number, got -1.'],
    ['lookup', 'dns', 'lookup must be a function like dns.lookup, got a string.'],
  ])('refuses %s = %j with a TypeError', (name, value, message) => {
    expectTypeError(make({ [name]: value }), message);
  });

  it('accepts the edges: jitter 0, an empty schedule, zero delays', () => {
    expect(() => make({ jitter: 0, retrySchedule: [] })()).not.toThrow();
    expect(() => make({ jitter: 0.99, retrySchedule: [0, 0] })()).not.toThrow();
  });
});

describe('publish', () => {
  it('refuses an unknown event type with WEBHOOK_UNKNOWN_EVENT_TYPE', async () => {
    const { webhooks } = await webhooksWith();
    await expectWebhookError(webhooks.publish('review.updated', {}), 'Unknown event type "review.updated"; the types are: review.created, review.deleted.', 'WEBHOOK_UNKNOWN_EVENT_TYPE');
  });

  it('resolves with the event when no endpoint wants its type, storing and sending nothing', async () => {
    const { webhooks, store, dir } = await webhooksWith();
    const rx = await receiver();
    const { endpoint } = await webhooks.register({ url: rx.url, events: ['review.deleted'] });
    const event = await webhooks.publish('review.created', { n: 1, nested: { list: [1, 'two', null] } });
    expect(event).toMatchObject({ type: 'review.created', data: { n: 1, nested: { list: [1, 'two', null] } } });
    expect(event.id).toMatch(EVENT_ID);
    expect(await store.event(event.id)).toBeNull();
    expect(readFileSync(join(dir, JOURNAL_FILE), 'utf8')).not.toContain(event.id);
    await sleep(100);
    expect(rx.requests).toHaveLength(0);
    expect(await webhooks.deliveries(endpoint.id)).toEqual([]);
  });

  it('sends a JSON copy of the data, taken when publish is called', async () => {
    const { webhooks } = await webhooksWith();
    const rx = await receiver();
    const { secret } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    const data = { when: new Date('2024-01-02T03:04:05.000Z'), missing: undefined, list: [1] };
    const event = await webhooks.publish('review.created', data);
    data.list.push(2);
    await rx.waitForRequests(1);
    expect(verifyDelivery(secret, rx.requests[0]!)).toEqual({ id: event.id, type: 'review.created', occurredAt: event.occurredAt, data: { when: '2024-01-02T03:04:05.000Z', list: [1] } });
  });

  it('never shows a secret: list(), get(), register() and rotateSecret() give views without one', async () => {
    const { webhooks } = await webhooksWith();
    const one = await webhooks.register({ url: 'http://127.0.0.1:9/one', events: ['review.created'], description: 'first' });
    const two = await webhooks.register({ url: 'http://localhost:9/two', events: ['review.created', 'review.deleted'] });
    const rotated = await webhooks.rotateSecret(one.endpoint.id);
    const list = await webhooks.list();
    const shown = JSON.stringify([list, await webhooks.get(one.endpoint.id), await webhooks.get(two.endpoint.id), one.endpoint, two.endpoint, rotated.endpoint]);
    expect(shown).not.toMatch(/secret/i);
    for (const secret of [one.secret, two.secret, rotated.secret]) expect(shown).not.toContain(secret.slice('whsec_'.length));
    expect(list.map((view) => Object.keys(view).sort())).toEqual(
      Array.from({ length: 2 }, () => ['consecutiveFailures', 'createdAt', 'description', 'disabled', 'events', 'id', 'url']),
    );
    expect(list.map((view) => [view.url, view.events, view.description])).toEqual([
      ['http://127.0.0.1:9/one', ['review.created'], 'first'],
      ['http://localhost:9/two', ['review.created', 'review.deleted'], null],
    ]);
    expect(await webhooks.get('ep_missing')).toBeNull();
    expect(await webhooks.remove(two.endpoint.id)).toBe(true);
    expect(await webhooks.remove(two.endpoint.id)).toBe(false);
    expect((await webhooks.list()).map((view) => view.id)).toEqual([one.endpoint.id]);
  });
});

describe('createEventBus', () => {
  it('puts the event in the webhooks and hands its data to the pub/sub under the type as topic', async () => {
    const { webhooks } = await webhooksWith();
    const rx = await receiver();
    const { secret } = await webhooks.register({ url: rx.url, events: ['review.created'] });
    const pubsub = createPubSub();
    cleanup.defer(() => pubsub.close());
    const created = pubsub.subscribe<{ id: string }>('review.created');
    const deleted = pubsub.subscribe('review.deleted');
    const bus = createEventBus({ pubsub, webhooks });
    const data = { id: 'r5', bookId: 'b2', stars: 5, text: null };
    const event = await bus.publish('review.created', data);
    expect(event).toMatchObject({ type: 'review.created', data });
    expect(await created.next()).toEqual({ done: false, value: data });
    await rx.waitForRequests(1);
    expect(rx.requests[0]!.webhookId).toBe(event.id);
    expect(verifyDelivery(secret, rx.requests[0]!)).toEqual(bodyOf(event));
    expect(pubsub.subscriberCount('review.deleted')).toBe(1);
    await deleted.return?.();
    await created.return?.();
  });

  it('still publishes to the pub/sub when no webhooks are given, and refuses nothing the webhooks would', async () => {
    const pubsub = createPubSub();
    cleanup.defer(() => pubsub.close());
    const topic = pubsub.subscribe('review.deleted');
    const event = await createEventBus({ pubsub }).publish('review.deleted', { id: 'r1' });
    expect(event).toMatchObject({ type: 'review.deleted', data: { id: 'r1' } });
    expect(await topic.next()).toEqual({ done: false, value: { id: 'r1' } });
    await topic.return?.();
  });

  it('rejects (and publishes nothing to the pub/sub) when the webhooks refuse the type', async () => {
    const { webhooks } = await webhooksWith();
    const pubsub = createPubSub();
    cleanup.defer(() => pubsub.close());
    const bus = createEventBus({ pubsub, webhooks });
    const published: unknown[] = [];
    const original = pubsub.publish.bind(pubsub);
    pubsub.publish = (topic, payload) => {
      published.push(topic);
      return original(topic, payload);
    };
    await expectWebhookError(bus.publish('review.updated', {}), 'Unknown event type "review.updated"; the types are: review.created, review.deleted.', 'WEBHOOK_UNKNOWN_EVENT_TYPE');
    expect(published).toEqual([]);
  });
});

describe("the demo's GraphQL admin API", () => {
  interface Answer {
    data?: Record<string, unknown> | null;
    errors?: Array<{ message: string; path?: unknown; extensions?: { code?: unknown } }>;
  }

  async function demo(): Promise<{ ask: (key: string, query: string, variables?: Record<string, unknown>) => Promise<Answer> }> {
    const { webhooks } = await webhooksWith({ eventTypes: DEMO_EVENT_TYPES });
    const pubsub = createPubSub();
    const data = createDemoData(pubsub, webhooks);
    const server = createServer({
      schema: demoSchema,
      context: (_request, { identity }) => createDemoContext(data, identity),
      ...demoSecurity({}),
      log: () => undefined,
    });
    const port = await listenOnLoopback(server);
    cleanup.defer(() => pubsub.close());
    cleanup.defer(() => closeNow(server));
    return {
      ask: async (key, query, variables) => json(await postJson(`http://127.0.0.1:${port}/graphql`, { query, variables }, 'application/json', { 'x-api-key': key })) as Answer,
    };
  }

  const REGISTER = /* GraphQL */ `
    mutation ($url: String!, $events: [String!]!, $description: String) {
      registerWebhook(url: $url, events: $events, description: $description) { id url events description secret disabledReason consecutiveFailures }
    }
  `;

  it('lets an admin register, list, rotate, redeliver, disable-and-enable and remove; addReview delivers review.created signed', async () => {
    const rx = await receiver();
    const { ask } = await demo();
    const registered = await ask('demo-admin', REGISTER, { url: rx.url, events: ['review.created'], description: 'reviews' });
    expect(registered.errors).toBeUndefined();
    const endpoint = registered.data?.['registerWebhook'] as { id: string; secret: string };
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^ep_/),
      url: rx.url,
      events: ['review.created'],
      description: 'reviews',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      disabledReason: null,
      consecutiveFailures: 0,
    });

    const listed = await ask('demo-admin', '{ webhookEndpoints { id url secret events } }');
    expect(listed.errors).toBeUndefined();
    expect(listed.data).toEqual({ webhookEndpoints: [{ id: endpoint.id, url: rx.url, secret: null, events: ['review.created'] }] });

    const added = await ask('demo-editor', 'mutation { addReview(review: { bookId: "b1", stars: 4, text: "Still timely." }) { id stars text book { id } } }');
    expect(added.errors).toBeUndefined();
    expect(added.data?.['addReview']).toEqual({ id: 'r2', stars: 4, text: 'Still timely.', book: { id: 'b1' } });
    // The event's data is the review row.
    const review = { id: 'r2', bookId: 'b1', stars: 4, text: 'Still timely.' };
    await rx.waitForRequests(1);
    const body = verifyDelivery(endpoint.secret, rx.requests[0]!) as WebhookEvent;
    expect(body).toEqual({ id: rx.requests[0]!.webhookId, type: 'review.created', occurredAt: expect.stringMatching(ISO), data: review });

    let history: Answer = {};
    await waitUntil(
      async () => {
        history = await ask('demo-admin', '{ webhookEndpoints { deliveries { eventId status nextAttemptAt attempts { status error responseBody } } } }');
        const list = (history.data?.['webhookEndpoints'] as Array<{ deliveries: Array<{ status: string }> }> | undefined)?.[0]?.deliveries;
        return list?.[0]?.status === 'delivered';
      },
      3000,
      'the delivery to be recorded',
    );
    expect(history.data).toEqual({
      webhookEndpoints: [{ deliveries: [{ eventId: body.id, status: 'delivered', nextAttemptAt: null, attempts: [{ status: 200, error: null, responseBody: 'ok' }] }] }],
    });

    const rotated = await ask('demo-admin', `mutation { rotateWebhookSecret(id: "${endpoint.id}") { id secret } }`);
    const fresh = (rotated.data?.['rotateWebhookSecret'] as { secret: string }).secret;
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(endpoint.secret);

    expect((await ask('demo-admin', `mutation { redeliverWebhookEvent(eventId: "${body.id}") }`)).data).toEqual({ redeliverWebhookEvent: 1 });
    await rx.waitForRequests(2);
    expect(rx.requests[1]!.webhookId).toBe(body.id);
    // A day's grace: both secrets sign the redelivery.
    expect(verifyDelivery(fresh, rx.requests[1]!)).toEqual(body);
    expect(verifyDelivery(endpoint.secret, rx.requests[1]!)).toEqual(body);

    expect((await ask('demo-admin', `mutation { enableWebhook(id: "${endpoint.id}") { id disabledReason consecutiveFailures } }`)).data).toEqual({
      enableWebhook: { id: endpoint.id, disabledReason: null, consecutiveFailures: 0 },
    });
    expect((await ask('demo-admin', `mutation { removeWebhook(id: "${endpoint.id}") }`)).data).toEqual({ removeWebhook: true });
    expect((await ask('demo-admin', '{ webhookEndpoints { id } }')).data).toEqual({ webhookEndpoints: [] });
  });

  it('refuses registerWebhook and webhookEndpoints to an editor with FORBIDDEN', async () => {
    const { ask } = await demo();
    const refused = await ask('demo-editor', REGISTER, { url: 'http://127.0.0.1:9/hook', events: ['review.created'] });
    expect(refused.errors?.map((error) => [error.message, error.extensions?.code, error.path])).toEqual([
      ['Access to Mutation.registerWebhook requires the role admin.', 'FORBIDDEN', ['registerWebhook']],
    ]);
    const listed = await ask('demo-editor', '{ webhookEndpoints { id } }');
    expect(listed.errors?.map((error) => [error.message, error.extensions?.code])).toEqual([['Access to Query.webhookEndpoints requires the role admin.', 'FORBIDDEN']]);
    expect((await ask('demo-admin', '{ webhookEndpoints { id } }')).data).toEqual({ webhookEndpoints: [] });
  });

  it('turns a refused URL, an unknown type and an unknown id into GraphQL errors with the WebhookError code and message', async () => {
    const { ask } = await demo();
    const bad = await ask('demo-admin', REGISTER, { url: 'javascript:alert(1)', events: ['review.created'] });
    expect(bad.errors?.map((error) => [error.message, error.extensions?.code, error.path])).toEqual([
      ['The callback URL must use https or http, not javascript.', 'WEBHOOK_INVALID_URL', ['registerWebhook']],
    ]);
    const unknown = await ask('demo-admin', REGISTER, { url: 'http://10.0.0.1/hook', events: ['review.created'] });
    expect(unknown.errors?.map((error) => [error.message, error.extensions?.code])).toEqual([
      ["The callback URL's host 10.0.0.1 is a private address; only public addresses may be called (to allow this one, add 10.0.0.1 to the webhooks' allowedHosts option).", 'WEBHOOK_INVALID_URL'],
    ]);
    const type = await ask('demo-admin', REGISTER, { url: 'http://127.0.0.1:9/hook', events: ['review.updated'] });
    expect(type.errors?.map((error) => [error.message, error.extensions?.code])).toEqual([
      ['Unknown event type "review.updated"; the types are: review.created, review.deleted.', 'WEBHOOK_UNKNOWN_EVENT_TYPE'],
    ]);
    const missing = await ask('demo-admin', 'mutation { redeliverWebhookEvent(eventId: "evt_missing") }');
    expect(missing.errors?.map((error) => [error.message, error.extensions?.code])).toEqual([['No event with id "evt_missing" is kept.', 'NOT_FOUND']]);
  });
});
