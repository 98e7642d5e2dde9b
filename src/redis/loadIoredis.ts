/**
 * The Redis client, loaded on first use. ioredis is an optional dependency: a server that uses
 * no Redis feature (pub/sub, rate-limit store, persisted-query store) never imports it, and one
 * that does gets an error naming the package to install.
 */
import type { Redis } from 'ioredis';
import type { IoredisClient } from './ioredisClient.ts';

/** The ioredis client behind an `IoredisClient` the application gave. */
export function asRedis(client: IoredisClient): Redis {
  return client as unknown as Redis;
}

let ioredis: Promise<{ Redis: typeof Redis }> | undefined;

export function loadIoredis(feature: string): Promise<{ Redis: typeof Redis }> {
  ioredis ??= import('ioredis').then(
    (module) => ({ Redis: module.Redis }),
    (error: unknown) => {
      // Not remembered: once the package is installed, the next use finds it.
      ioredis = undefined;
      throw new Error(
        `${feature} needs the ioredis package, which could not be loaded (${error instanceof Error ? error.message : String(error)}). It is an optional dependency: install it with "npm install ioredis".`,
        { cause: error },
      );
    },
  );
  return ioredis;
}
