/**
 * What `npm start` checks of its environment before it serves, so that a setting it cannot use
 * stops it with one line naming the variable, rather than being ignored (NODE_ENV=prod would
 * otherwise start in development, with the demo keys accepted) or failing later with another
 * library's words (getaddrinfo ENOTFOUND, ioredis's retry messages):
 *
 *   NODE_ENV    production, development, test, or unset
 *   PORT        a port number, 0 to 65535 (default 4000)
 *   HOST        an IP address or a host name (default 127.0.0.1)
 *   REDIS_URL   a redis:// or rediss:// URL whose server answers PING within REDIS_CHECK_MS
 *
 * Each check throws a TypeError (an unusable value) or an Error (an unreachable service) whose
 * message is that line; main.ts prints it and exits 2. A password in REDIS_URL is never printed.
 */
import { isIP } from 'node:net';
import { loadIoredis } from '../redis/loadIoredis.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** How long REDIS_URL's server has to answer at start. */
export const REDIS_CHECK_MS = 3000;

const MODES = ['production', 'development', 'test'] as const;

/** Whether the demo runs in production, from NODE_ENV (unset or empty: development). */
export function demoMode(env: Env): 'production' | 'development' | 'test' {
  const value = env['NODE_ENV'];
  if (value === undefined || value.trim() === '') return 'development';
  if (!(MODES as ReadonlyArray<string>).includes(value)) {
    throw new TypeError(`NODE_ENV must be production, development or test (or unset), got "${value}".`);
  }
  return value as (typeof MODES)[number];
}

/** Where to listen, from PORT and HOST. */
export function demoAddress(env: Env): { port: number; host: string } {
  const portText = env['PORT']?.trim() || '4000';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) throw new TypeError(`PORT must be a port number from 0 to 65535, got "${env['PORT']}".`);
  const host = env['HOST']?.trim() || '127.0.0.1';
  if (!isHost(host)) throw new TypeError(`HOST must be an IP address or a host name, got "${env['HOST']}".`);
  return { port, host };
}

/**
 * An IP address, or a host name by RFC 1123 (labels of letters, digits and hyphens, up to 63
 * characters each, not starting or ending with a hyphen). Dotted numbers that are no IPv4
 * address (999.1.1.1) are refused: a resolver would look them up as a name.
 */
function isHost(host: string): boolean {
  if (isIP(host) !== 0) return true;
  if (/^[\d.]+$/.test(host) || host.length > 253) return false;
  return host.split('.').every((label) => /^[a-z\d]([a-z\d-]{0,61}[a-z\d])?$/i.test(label));
}

/** REDIS_URL with its password (and a user name's secret part) replaced, for messages. */
export function maskedUrl(url: string): string {
  // On the text as given (a URL parser would also rewrite the rest): `scheme://user:secret@`.
  return url.replace(/^([a-z][a-z\d+.-]*:\/\/[^:/@]*:)[^@/]*@/i, '$1****@');
}

/** Resolves once REDIS_URL's server has answered PING (nothing to do without REDIS_URL); else rejects with one line. */
export async function checkRedis(env: Env): Promise<void> {
  const url = env['REDIS_URL']?.trim();
  if (url === undefined || url === '') return;
  if (!/^rediss?:\/\//.test(url)) throw new TypeError(`REDIS_URL must be a redis:// or rediss:// URL, got "${maskedUrl(url)}".`);
  const { Redis } = await loadIoredis('REDIS_URL');
  const client = new Redis(url, { lazyConnect: true, connectTimeout: REDIS_CHECK_MS, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  // The socket's own error (ECONNREFUSED, ENOTFOUND…) says more than the command's "Connection
  // is closed"; listening also keeps ioredis from printing it.
  let socketError: Error | null = null;
  client.on('error', (error: Error) => {
    socketError ??= error;
  });
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    const reason = (socketError ?? (error as Error)).message.replace(/\.$/, '');
    throw new Error(`REDIS_URL ${maskedUrl(url)} cannot be reached: ${reason}.`, { cause: error });
  } finally {
    client.disconnect();
  }
}
