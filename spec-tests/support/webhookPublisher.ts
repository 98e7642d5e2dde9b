/**
 * A child process for the webhook durability tests (spec-tests/webhooks-durability.test.ts):
 * createWebhooks over a FileStore or a RedisWebhookStore, started as a server would start it,
 * killed by the test (SIGKILL) wherever it is.
 *
 *   node --import tsx spec-tests/support/webhookPublisher.ts '<json config>'
 *
 * Config: { store: 'file' | 'redis', dir?, redisUrl?, keyPrefix?, receiverUrl, mode, count?,
 * attemptTimeoutMs? }. The endpoint for `receiverUrl` is registered on the first start and found
 * with list() on the next ones. Modes:
 *   publish         start, then publish events 1..count as fast as it can, each awaited
 *   publish-first   open the store and publish 1..count without sending anything, then start
 *   drain           start and publish nothing: only what the store holds goes out
 *
 * It prints one JSON line per fact on stdout (a pipe: each write is synchronous and atomic):
 *   {"endpoint": id, "secret": secret | null, "created": boolean}
 *   {"published": eventId, "n": n}      once publish has resolved: the event is durable
 *   {"started": true}                   once the webhooks are started
 *   {"done": true}                      after the last publish
 *   {"drained": true}                   (drain) once nothing is pending in the store
 * and stays up (until killed, or SIGTERM: closed gracefully).
 */
import { FileStore } from '../../src/webhooks/fileStore.ts';
import { RedisWebhookStore } from '../../src/webhooks/redisStore.ts';
import type { WebhookStore } from '../../src/webhooks/store.ts';
import { createWebhooks } from '../../src/webhooks/webhooks.ts';
import { PUBLISHER_EVENT_TYPE, PUBLISHER_OPTIONS } from './webhooksChild.ts';
import type { PublisherConfig } from './webhooksChild.ts';

function print(fact: unknown): void {
  process.stdout.write(JSON.stringify(fact) + '\n');
}

async function main(config: PublisherConfig): Promise<void> {
  const store: WebhookStore =
    config.store === 'file' ? new FileStore({ dir: config.dir as string }) : new RedisWebhookStore({ url: config.redisUrl as string, keyPrefix: config.keyPrefix as string });
  const webhooks = createWebhooks({
    ...PUBLISHER_OPTIONS,
    store,
    attemptTimeoutMs: config.attemptTimeoutMs ?? 2000,
    log: (entry) => process.stderr.write(`${entry.level}: ${entry.message} ${entry.error === undefined ? '' : String(entry.error)}\n`),
  });
  process.on('SIGTERM', () => {
    void webhooks.close().then(() => process.exit(0));
  });
  // The timers of the webhooks do not keep a process up: this does, until it is killed.
  setInterval(() => undefined, 60_000);

  await store.open();
  const existing = (await webhooks.list()).find((endpoint) => endpoint.url === config.receiverUrl);
  if (existing === undefined) {
    const { endpoint, secret } = await webhooks.register({ url: config.receiverUrl, events: [PUBLISHER_EVENT_TYPE] });
    print({ endpoint: endpoint.id, secret, created: true });
  } else {
    print({ endpoint: existing.id, secret: null, created: false });
  }

  const publishAll = async () => {
    for (let n = 1; n <= (config.count ?? 0); n++) {
      const event = await webhooks.publish(PUBLISHER_EVENT_TYPE, { n });
      print({ published: event.id, n });
    }
    print({ done: true });
  };
  if (config.mode === 'publish-first') await publishAll();
  await webhooks.start();
  print({ started: true });
  if (config.mode === 'publish') await publishAll();
  if (config.mode === 'drain') {
    // Nothing pending any more (every delivery's outcome recorded): said once.
    const watch = setInterval(() => {
      void store.nextDue().then((due) => {
        if (due !== null) return;
        clearInterval(watch);
        print({ drained: true });
      });
    }, 50);
  }
}

main(JSON.parse(process.argv[2] ?? '{}') as PublisherConfig).catch((error: unknown) => {
  process.stderr.write(`webhookPublisher failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
