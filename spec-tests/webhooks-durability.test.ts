/**
 * Webhook durability: at least once, whatever happens to the process.
 *
 * A. The crash test, file store. A child process (spec-tests/support/webhookPublisher.ts)
 *    publishes numbered events as fast as it can, each awaited, printing each id once publish
 *    has resolved; the receiver answers 200 after 20 ms, so many deliveries are still pending
 *    when the test kills the child with SIGKILL. The child is started again on the same
 *    directory, publishing nothing: every event it acknowledged must reach the receiver. Three
 *    runs, killed at different moments (one with a torn line appended to the journal by hand).
 * B. The same against Redis (RedisWebhookStore, a key prefix per run).
 * C. Two instances on one Redis: no duplicate when none dies; when one dies mid-attempt, the
 *    other takes its claims over once their lease (attempt time + 5 s) runs out.
 * D. The file store's journal: a torn last line dropped and the file truncated; compaction
 *    keeping the state identical across a reopen.
 *
 * B and C run against REDIS_URL and are skipped, saying so, when it is unset.
 */
import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStore, JOURNAL_FILE } from '../src/webhooks/fileStore.ts';
import { RedisWebhookStore } from '../src/webhooks/redisStore.ts';
import type { AttemptOutcome, DeliveryAttempt, EndpointEffect, WebhookEndpoint, WebhookEvent, WebhookStore } from '../src/webhooks/store.ts';
import { createWebhooks } from '../src/webhooks/webhooks.ts';
import { Cleanup, ok, startReceiver, tempDir, verifyDelivery, waitUntil } from './support/webhooks.ts';
import type { Receiver } from './support/webhooks.ts';
import { PUBLISHER_EVENT_TYPE, PUBLISHER_OPTIONS, spawnPublisher } from './support/webhooksChild.ts';
import type { Publisher, PublisherConfig } from './support/webhooksChild.ts';

const REDIS_URL = process.env.REDIS_URL ?? '';
const HAS_REDIS = REDIS_URL !== '';
if (!HAS_REDIS) {
  console.log('webhooks-durability.test.ts: the Redis crash and takeover tests are skipped: REDIS_URL is not set (e.g. REDIS_URL=redis://127.0.0.1:6379).');
}

/** Concurrency per endpoint (the default): at most this many attempts are in flight, so at most this many can be repeated after a crash. */
const PER_ENDPOINT = 4;

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** A key prefix of its own for one test, its keys deleted after it. */
function newPrefix(): string {
  const prefix = `webhooks-test:${process.pid}:${randomUUID().slice(0, 8)}:`;
  cleanup.defer(async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  });
  return prefix;
}

function track(publisher: Publisher): Publisher {
  cleanup.defer(() => publisher.kill());
  return publisher;
}

/** The `n` of each request's body, and how many requests each event id got. */
function received(rx: Receiver): { numbers: number[]; counts: Map<string, number> } {
  const counts = new Map<string, number>();
  const numbers: number[] = [];
  for (const request of rx.requests) {
    counts.set(request.webhookId, (counts.get(request.webhookId) ?? 0) + 1);
    if (counts.get(request.webhookId) === 1) numbers.push((JSON.parse(request.body) as { data: { n: number } }).data.n);
  }
  return { numbers: numbers.sort((a, b) => a - b), counts };
}

interface CrashRun {
  label: string;
  /** Kill once this many events are acknowledged, or this long after the first one. */
  killAfter: { events: number } | { ms: number };
  /** Append a partial line to the journal between the kill and the restart. */
  tearJournal?: boolean;
}

/**
 * One crash run: publish, SIGKILL, restart publishing nothing, wait for every acknowledged event.
 * Answers the counts it printed.
 */
async function crashRun(store: 'file' | 'redis', run: CrashRun): Promise<{ acknowledged: number; distinct: number; duplicates: number }> {
  const rx = cleanup.add(await startReceiver(ok(200, 'ok', 20)));
  const { dir, remove } = tempDir();
  cleanup.defer(remove);
  const base: Omit<PublisherConfig, 'mode'> =
    store === 'file'
      ? { store, dir, receiverUrl: rx.url, attemptTimeoutMs: 2000 }
      : { store, redisUrl: REDIS_URL, keyPrefix: newPrefix(), receiverUrl: rx.url, attemptTimeoutMs: 500 };

  const first = track(spawnPublisher({ ...base, mode: 'publish', count: 100_000 }));
  const hello = await first.fact('endpoint');
  expect(hello['created']).toBe(true);
  const secret = hello['secret'] as string;
  if ('events' in run.killAfter) {
    await first.publishedAtLeast(run.killAfter.events);
  } else {
    await first.publishedAtLeast(1);
    await sleep(run.killAfter.ms);
  }
  await first.kill('SIGKILL');
  const killedAt = performance.now();
  expect((await first.exited).signal).toBe('SIGKILL');
  const acknowledged = [...first.published];
  const beforeRestart = rx.requests.length;

  let tornTail = false;
  const journal = join(dir, JOURNAL_FILE);
  const garbage = '{"t":"attempt","id":"dlv_torn","attempt":{"at":"2025-';
  if (store === 'file') {
    tornTail = !readFileSync(journal, 'utf8').endsWith('\n');
    if (run.tearJournal === true) appendFileSync(journal, garbage);
  }

  const second = track(spawnPublisher({ ...base, mode: 'drain' }));
  const again = await second.fact('endpoint');
  expect(again).toEqual({ endpoint: hello['endpoint'], secret: null, created: false });
  await second.fact('started');
  await waitUntil(
    () => {
      const { counts } = received(rx);
      return acknowledged.every((id) => counts.has(id));
    },
    10_000,
    () => `every acknowledged event at the receiver (${acknowledged.filter((id) => !received(rx).counts.has(id)).length} of ${acknowledged.length} missing)`,
  );
  // Then every delivery's outcome recorded: with Redis, the dead instance's claims taken over once their lease ran out.
  await second.fact('drained', 15_000);
  const drainedAfter = Math.round(performance.now() - killedAt);
  await sleep(50);
  await second.kill('SIGKILL');

  const { numbers, counts } = received(rx);
  const duplicates = rx.requests.length - counts.size;
  console.log(
    `webhooks crash run (${store}, ${run.label}): acknowledged ${acknowledged.length}, received distinct ${counts.size} (${beforeRestart} requests before the restart), duplicates ${duplicates}, nothing pending ${drainedAfter} ms after the kill` +
      (store === 'file' ? `, journal ended in a torn line at the kill: ${tornTail}${run.tearJournal === true ? ', a torn line appended by hand' : ''}` : ''),
  );
  for (const id of acknowledged) expect(counts.get(id) ?? 0).toBeGreaterThanOrEqual(1);
  // Published one after the other, each awaited: what arrived is 1..max, no hole.
  expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, index) => index + 1));
  expect(numbers.length).toBeGreaterThanOrEqual(acknowledged.length);
  // Only an attempt in flight at the kill can be made again: at most one endpoint's places.
  expect(duplicates).toBeLessThanOrEqual(PER_ENDPOINT);
  for (const request of rx.requests) expect(verifyDelivery(secret, request)).toEqual(JSON.parse(request.body));
  if (store === 'file' && run.tearJournal === true) expect(readFileSync(journal, 'utf8')).not.toContain(garbage);
  return { acknowledged: acknowledged.length, distinct: counts.size, duplicates };
}

/** A whole number from `low` to below `high`, printed in the test's name. */
function between(low: number, high: number): number {
  return low + Math.floor(Math.random() * (high - low));
}

describe('A. a publisher killed with SIGKILL, file store', () => {
  const events = between(150, 350);
  const ms = between(50, 150);
  const runs: CrashRun[] = [
    { label: 'killed after 200 acknowledged events', killAfter: { events: 200 } },
    { label: `killed after ${events} acknowledged events, a torn line appended`, killAfter: { events }, tearJournal: true },
    { label: `killed ${ms} ms after its first event`, killAfter: { ms } },
  ];
  it.each(runs)('delivers every acknowledged event after a restart: $label', async (run) => {
    const counts = await crashRun('file', run);
    expect(counts.acknowledged).toBeGreaterThan(0);
  });
});

describe.skipIf(!HAS_REDIS)('B. a publisher killed with SIGKILL, Redis store', () => {
  const ms = between(50, 150);
  const runs: CrashRun[] = [
    { label: 'killed after 200 acknowledged events', killAfter: { events: 200 } },
    { label: `killed ${ms} ms after its first event`, killAfter: { ms } },
  ];
  it.each(runs)('delivers every acknowledged event after a restart: $label', async (run) => {
    const counts = await crashRun('redis', run);
    expect(counts.acknowledged).toBeGreaterThan(0);
  });
});

describe.skipIf(!HAS_REDIS)('C. two instances on one Redis', () => {
  /** A Redis store whose claims are counted. */
  function countingStore(keyPrefix: string): { store: RedisWebhookStore; claimed: string[] } {
    const store = new RedisWebhookStore({ url: REDIS_URL, keyPrefix });
    const claimed: string[] = [];
    const claimDue = store.claimDue.bind(store);
    store.claimDue = async (...args) => {
      const found = await claimDue(...args);
      for (const each of found) claimed.push(each.delivery.id);
      return found;
    };
    return { store, claimed };
  }

  it('delivers each of 200 events published from either instance exactly once when neither dies', async () => {
    const keyPrefix = newPrefix();
    const rx = cleanup.add(await startReceiver(ok(200, 'ok', 5)));
    const a = countingStore(keyPrefix);
    const b = countingStore(keyPrefix);
    const one = createWebhooks({ ...PUBLISHER_OPTIONS, store: a.store, attemptTimeoutMs: 500, pollMs: 50, log: () => undefined });
    const two = createWebhooks({ ...PUBLISHER_OPTIONS, store: b.store, attemptTimeoutMs: 500, pollMs: 50, log: () => undefined });
    await one.start();
    await two.start();
    cleanup.defer(() => Promise.all([one.close(), two.close()]));
    const { endpoint, secret } = await one.register({ url: rx.url, events: [PUBLISHER_EVENT_TYPE] });
    expect((await two.list()).map((view) => view.id)).toEqual([endpoint.id]);

    const events: WebhookEvent[] = [];
    for (let batch = 0; batch < 20; batch++) {
      events.push(...(await Promise.all(Array.from({ length: 10 }, (_, index) => (index % 2 === 0 ? one : two).publish(PUBLISHER_EVENT_TYPE, { n: batch * 10 + index + 1 })))));
    }
    await waitUntil(() => events.every((event) => rx.tally().distinct.has(event.id)), 15_000, () => `all 200 events (have ${rx.tally().distinct.size})`);
    await sleep(300);
    const { distinct, duplicates } = rx.tally();
    console.log(`webhooks two instances, none dies: published 200, received distinct ${distinct.size}, duplicates ${duplicates}; claimed ${a.claimed.length} + ${b.claimed.length}`);
    expect(distinct.size).toBe(200);
    expect(duplicates).toBe(0);
    expect(rx.requests).toHaveLength(200);
    // Each delivery claimed once, by one of them; both took part.
    expect(new Set([...a.claimed, ...b.claimed]).size).toBe(200);
    expect(a.claimed.length + b.claimed.length).toBe(200);
    expect(a.claimed.length).toBeGreaterThan(0);
    expect(b.claimed.length).toBeGreaterThan(0);
    for (const request of rx.requests) expect(verifyDelivery(secret, request)).toEqual(JSON.parse(request.body));
    await waitUntil(async () => (await one.deliveries(endpoint.id, 100)).every((delivery) => delivery.status === 'delivered'), 3000, 'the outcomes to be recorded');
    const recent = await two.deliveries(endpoint.id, 100);
    expect(recent).toHaveLength(100);
    expect(recent.map((delivery) => [delivery.status, delivery.attempts.length])).toEqual(Array.from({ length: 100 }, () => ['delivered', 1]));
  });

  it('takes over the claims of an instance killed mid-attempt once their lease (500 ms + 5 s) has run out, and delivers every event', async () => {
    const keyPrefix = newPrefix();
    const rx = cleanup.add(await startReceiver({ kind: 'hang' }));
    const survivorStore = new RedisWebhookStore({ url: REDIS_URL, keyPrefix });
    const survivor = createWebhooks({ ...PUBLISHER_OPTIONS, store: survivorStore, attemptTimeoutMs: 500, pollMs: 100, log: () => undefined });
    cleanup.defer(() => survivor.close());
    // Registered here, before the survivor starts sending: the child finds it.
    await survivorStore.open();
    const { endpoint, secret } = await survivor.register({ url: rx.url, events: [PUBLISHER_EVENT_TYPE] });

    const count = 30;
    const doomed = track(spawnPublisher({ store: 'redis', redisUrl: REDIS_URL, keyPrefix, receiverUrl: rx.url, mode: 'publish-first', count, attemptTimeoutMs: 500 }));
    expect(await doomed.fact('endpoint')).toEqual({ endpoint: endpoint.id, secret: null, created: false });
    await doomed.fact('started');
    // Its first attempts are at the receiver, unanswered: killed now, well within their 500 ms.
    await rx.waitForRequests(PER_ENDPOINT, 3000);
    const claimedAt = rx.requests[0]!.at;
    await doomed.kill('SIGKILL');
    const killedAfter = performance.now() - claimedAt;
    const published = [...doomed.published];
    expect(published).toHaveLength(count);
    expect(rx.requests).toHaveLength(PER_ENDPOINT);
    const orphaned = rx.requests.map((request) => request.webhookId);

    rx.script([], ok(200));
    await survivor.start();
    await waitUntil(
      () => {
        const answered = new Set(rx.requests.filter((request) => request.reply.kind === 'status').map((request) => request.webhookId));
        return published.every((id) => answered.has(id));
      },
      12_000,
      () => `every event answered 200 (requests so far: ${rx.requests.length})`,
    );
    await sleep(200);
    const { distinct, duplicates } = rx.tally();
    const retaken = orphaned.map((id) => {
      const arrivals = rx.requests.filter((request) => request.webhookId === id).map((request) => request.at);
      return arrivals.length === 2 ? Math.round(arrivals[1]! - arrivals[0]!) : -arrivals.length;
    });
    console.log(
      `webhooks takeover: published ${count}, killed ${Math.round(killedAfter)} ms after its first attempt arrived, received distinct ${distinct.size}, duplicates ${duplicates}; orphaned attempts retaken after ${retaken.join(', ')} ms`,
    );
    expect(distinct.size).toBe(count);
    expect(duplicates).toBe(PER_ENDPOINT);
    for (const gap of retaken) {
      // Not before the lease ran out (5,500 ms after the claim, a little before the request arrived), and soon after.
      expect(gap).toBeGreaterThanOrEqual(5000);
      expect(gap).toBeLessThan(5500 + 1500);
    }
    for (const request of rx.requests) expect(verifyDelivery(secret, request)).toEqual(JSON.parse(request.body));
    await waitUntil(async () => (await survivor.deliveries(endpoint.id, 100)).every((delivery) => delivery.status === 'delivered'), 3000, 'the outcomes to be recorded');
    const deliveries = await survivor.deliveries(endpoint.id, 100);
    expect(deliveries).toHaveLength(count);
    // The killed instance's attempts were never recorded: one attempt each, the survivor's 200.
    expect(deliveries.map((delivery) => [delivery.status, delivery.attempts.map((attempt) => attempt.status)])).toEqual(Array.from({ length: count }, () => ['delivered', [200]]));
  });
});

describe.skipIf(!HAS_REDIS)('C2. Redis store: an endpoint removed while an attempt to it is in flight', () => {
  it('stays removed once the attempt ends (its outcome does not write the endpoint back)', async () => {
    const rx = cleanup.add(await startReceiver(ok(500, 'late', 300)));
    const store = new RedisWebhookStore({ url: REDIS_URL, keyPrefix: newPrefix() });
    const webhooks = createWebhooks({ ...PUBLISHER_OPTIONS, store, retrySchedule: [], attemptTimeoutMs: 2000, log: () => undefined });
    await webhooks.start();
    cleanup.defer(() => webhooks.close());
    const { endpoint } = await webhooks.register({ url: rx.url, events: [PUBLISHER_EVENT_TYPE] });
    await webhooks.publish(PUBLISHER_EVENT_TYPE, { n: 1 });
    await rx.waitForRequests(1);
    expect(await webhooks.remove(endpoint.id)).toBe(true);
    // The attempt's answer (500 after 300 ms, the schedule used up) is recorded meanwhile.
    await sleep(600);
    expect(await webhooks.list()).toEqual([]);
    expect(await webhooks.get(endpoint.id)).toBeNull();
  });
});

describe('D. the file store journal', () => {
  const ENDPOINT: WebhookEndpoint = {
    id: 'ep_one',
    url: 'http://127.0.0.1:9/hook',
    events: ['review.created'],
    description: null,
    secrets: [{ secret: 'whsec_AAAA', expiresAt: null }],
    createdAt: '2025-01-01T00:00:00.000Z',
    disabled: null,
    consecutiveFailures: 0,
  };
  const event = (n: number): WebhookEvent => ({ id: `evt_${String(n).padStart(26, '0')}`, type: 'review.created', occurredAt: '2025-01-01T00:00:00.000Z', data: { n } });
  const attempt = (status: number | null): DeliveryAttempt => ({ at: '2025-01-01T00:00:01.000Z', durationMs: 3, status, error: status === null ? 'No answer within 300 ms.' : null, responseBody: status === null ? '' : 'ok' });
  const effect = (kind: EndpointEffect['kind']): EndpointEffect => ({ kind, disableAfter: 5, at: '2025-01-01T00:00:02.000Z' });
  const delivered: AttemptOutcome = { attempt: attempt(200), status: 'delivered', nextAttemptAt: null, effect: effect('delivered') };
  const FAR = 4_000_000_000_000;

  function openStore(dir: string, keepDeliveries?: number): Promise<FileStore> {
    const store = new FileStore(keepDeliveries === undefined ? { dir } : { dir, keepDeliveries });
    return store.open().then(() => store);
  }

  /** Everything the store shows of itself (nothing it changes). */
  async function stateOf(store: WebhookStore, eventIds: string[]): Promise<unknown> {
    const endpoints = await store.endpoints();
    const deliveries: Record<string, unknown> = {};
    for (const endpoint of endpoints) deliveries[endpoint.id] = await store.deliveries(endpoint.id, 10_000);
    return { endpoints, deliveries, events: await Promise.all(eventIds.map((id) => store.event(id))), nextDue: await store.nextDue() };
  }

  function lineCount(dir: string): number {
    return readFileSync(join(dir, JOURNAL_FILE), 'utf8').split('\n').filter((line) => line !== '').length;
  }

  it('drops a torn last line on replay, truncating the file to the whole lines, and appends after them', async () => {
    const { dir, remove } = tempDir();
    cleanup.defer(remove);
    let store = await openStore(dir);
    await store.saveEndpoint(ENDPOINT);
    await store.enqueue(event(1), [{ id: 'dlv_1', endpointId: ENDPOINT.id }]);
    await store.enqueue(event(2), [{ id: 'dlv_2', endpointId: ENDPOINT.id }]);
    await store.recordAttempt('dlv_1', delivered);
    await store.recordAttempt('dlv_2', { attempt: attempt(500), status: 'pending', nextAttemptAt: FAR, effect: effect('pending') });
    const ids = [event(1).id, event(2).id, event(3).id];
    const before = await stateOf(store, ids);
    await store.close();
    const journal = join(dir, JOURNAL_FILE);
    const whole = statSync(journal).size;
    expect(statSync(journal).mode & 0o777).toBe(0o600);
    appendFileSync(journal, '{"t":"attempt","id":"dlv_2","attempt":{"at":"2025-01-01T00:00:02.000Z","durationMs":4,"sta');

    store = await openStore(dir);
    expect(await stateOf(store, ids)).toEqual(before);
    expect(statSync(journal).size).toBe(whole);
    expect(before).toMatchObject({ nextDue: FAR, events: [event(1), event(2), null] });
    // The next change lands on a line of its own.
    await store.enqueue(event(3), [{ id: 'dlv_3', endpointId: ENDPOINT.id }]);
    const after = await stateOf(store, ids);
    await store.close();
    store = await openStore(dir);
    expect(await stateOf(store, ids)).toEqual(after);
    expect((await store.deliveries(ENDPOINT.id, 10)).map((delivery) => [delivery.id, delivery.status])).toEqual([
      ['dlv_3', 'pending'],
      ['dlv_2', 'pending'],
      ['dlv_1', 'delivered'],
    ]);
    await store.close();
  });

  it('keeps the changes acknowledged after a replay whose last line had lost only its newline', async () => {
    // A crash can cut the last write anywhere, just before its final newline too: that line is
    // whole JSON without its end. The next change appended must not be glued to it.
    const { dir, remove } = tempDir();
    cleanup.defer(remove);
    let store = await openStore(dir);
    await store.saveEndpoint(ENDPOINT);
    await store.close();
    appendFileSync(join(dir, JOURNAL_FILE), JSON.stringify({ t: 'remove', id: 'ep_nothing' }));

    store = await openStore(dir);
    expect((await store.endpoints()).map((endpoint) => endpoint.id)).toEqual(['ep_one']);
    await store.saveEndpoint({ ...ENDPOINT, id: 'ep_two' });
    await store.enqueue(event(1), [{ id: 'dlv_1', endpointId: 'ep_two' }]);
    await store.close();

    store = await openStore(dir);
    const state = { endpoints: (await store.endpoints()).map((endpoint) => endpoint.id), deliveries: (await store.deliveries('ep_two', 10)).map((delivery) => delivery.id) };
    await store.close();
    expect(state).toEqual({ endpoints: ['ep_one', 'ep_two'], deliveries: ['dlv_1'] });
  });

  it('compacts a journal of over 10,000 lines into its state, which a reopen finds identical', async () => {
    const { dir, remove } = tempDir();
    cleanup.defer(remove);
    const keep = 5;
    let store = await openStore(dir, keep);
    const other: WebhookEndpoint = { ...ENDPOINT, id: 'ep_two', events: ['review.created', 'review.deleted'], consecutiveFailures: 2 };
    await store.saveEndpoint(ENDPOINT);
    await store.saveEndpoint(other);
    // 5,100 events delivered to ep_one (two lines each), and three left pending for ep_two.
    const many = Array.from({ length: 5100 }, (_, index) => event(index + 1));
    await Promise.all(many.map((each, index) => store.enqueue(each, [{ id: `dlv_${index + 1}`, endpointId: ENDPOINT.id }])));
    await Promise.all(many.map((_, index) => store.recordAttempt(`dlv_${index + 1}`, delivered)));
    const pending = [event(9001), event(9002), event(9003)];
    for (const [index, each] of pending.entries()) await store.enqueue(each, [{ id: `dlv_p${index}`, endpointId: other.id }]);
    await store.recordAttempt('dlv_p0', { attempt: attempt(null), status: 'pending', nextAttemptAt: FAR, effect: effect('pending') });
    await store.recordAttempt('dlv_p1', { attempt: attempt(503), status: 'pending', nextAttemptAt: FAR - 1, effect: effect('pending') });
    // One more finished delivery to ep_one, to pass the threshold after the burst.
    await store.enqueue(event(5101), [{ id: 'dlv_5101', endpointId: ENDPOINT.id }]);
    await store.recordAttempt('dlv_5101', { attempt: attempt(410), status: 'failed', nextAttemptAt: null, effect: effect('gone') });

    const ids = [...many, event(5101), ...pending].map((each) => each.id);
    const live = await stateOf(store, ids);
    const lines = lineCount(dir);
    await store.close();
    // Rewritten as the state: 2 endpoints, 5 + 3 events and their deliveries (and what came after).
    expect(lines).toBeLessThan(100);
    // dlv_p2 has had no attempt: due since it was enqueued.
    expect((live as { nextDue: number }).nextDue).toBeLessThanOrEqual(Date.now());
    const shown = live as { events: Array<WebhookEvent | null>; deliveries: Record<string, Array<{ id: string; status: string }>>; endpoints: WebhookEndpoint[] };
    expect(shown.events.filter((each) => each !== null).map((each) => each.id)).toEqual([...many.slice(-4), event(5101), ...pending].map((each) => each.id));
    expect(shown.deliveries['ep_one']!.map((delivery) => [delivery.id, delivery.status])).toEqual([
      ['dlv_5101', 'failed'],
      ['dlv_5100', 'delivered'],
      ['dlv_5099', 'delivered'],
      ['dlv_5098', 'delivered'],
      ['dlv_5097', 'delivered'],
    ]);
    expect(shown.deliveries['ep_two']!.map((delivery) => [delivery.id, delivery.status])).toEqual([
      ['dlv_p2', 'pending'],
      ['dlv_p1', 'pending'],
      ['dlv_p0', 'pending'],
    ]);
    expect(shown.endpoints.map((endpoint) => [endpoint.id, endpoint.disabled?.reason ?? null])).toEqual([
      ['ep_one', 'The endpoint answered 410 Gone.'],
      ['ep_two', null],
    ]);

    store = await openStore(dir, keep);
    expect(await stateOf(store, ids)).toEqual(live);
    // Changes after the compaction replay on top of it.
    await store.recordAttempt('dlv_p2', delivered);
    await store.saveEndpoint({ ...other, consecutiveFailures: 0 });
    const later = await stateOf(store, ids);
    expect(later).toMatchObject({ nextDue: FAR - 1 });
    await store.close();
    store = await openStore(dir, keep);
    expect(await stateOf(store, ids)).toEqual(later);
    // What is pending is due as it was (one per endpoint per pass: the oldest, dlv_p0), never dlv_p2.
    const due = await store.claimDue(FAR, 10, new Set(), 1000);
    expect(due.map((claim) => [claim.delivery.id, claim.event.id, claim.endpoint.id])).toEqual([['dlv_p0', event(9001).id, 'ep_two']]);
    await store.close();
  });
});
