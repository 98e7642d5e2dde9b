/**
 * What `npm start` refuses of its environment before serving (src/demo/environment.ts): each
 * unusable NODE_ENV, PORT, HOST or REDIS_URL stops it with one line naming the variable (exit
 * 2), and a password in REDIS_URL is never printed. The reachable case needs the Redis at
 * REDIS_URL, and is skipped, saying so, without one.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkRedis, demoAddress, demoMode, maskedUrl } from '../src/demo/environment.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REDIS_URL = process.env.REDIS_URL;

describe('NODE_ENV', () => {
  it.each([
    [{}, 'development'],
    [{ NODE_ENV: '' }, 'development'],
    [{ NODE_ENV: 'production' }, 'production'],
    [{ NODE_ENV: 'development' }, 'development'],
    [{ NODE_ENV: 'test' }, 'test'],
  ] as const)('%j is %s', (env, mode) => {
    expect(demoMode(env)).toBe(mode);
  });

  it.each(['prod', 'Production', 'staging'])('refuses "%s", naming the values it takes', (value) => {
    expect(() => demoMode({ NODE_ENV: value })).toThrow(new TypeError(`NODE_ENV must be production, development or test (or unset), got "${value}".`));
  });
});

describe('PORT and HOST', () => {
  it('default to 4000 on 127.0.0.1, and take ports, addresses and host names', () => {
    expect(demoAddress({})).toEqual({ port: 4000, host: '127.0.0.1' });
    expect(demoAddress({ PORT: '0', HOST: '::' })).toEqual({ port: 0, host: '::' });
    expect(demoAddress({ PORT: '65535', HOST: 'api.example.com' })).toEqual({ port: 65535, host: 'api.example.com' });
    expect(demoAddress({ HOST: 'localhost' })).toEqual({ port: 4000, host: 'localhost' });
  });

  it.each(['999.1.1.1', '1.2.3', 'bad_host', '-leading.example', 'a..b', `${'x'.repeat(64)}.example`])('refuses HOST "%s"', (host) => {
    expect(() => demoAddress({ HOST: host })).toThrow(new TypeError(`HOST must be an IP address or a host name, got "${host}".`));
  });

  it.each(['65536', '-1', '80a', '4.5'])('refuses PORT "%s"', (port) => {
    expect(() => demoAddress({ PORT: port })).toThrow(new TypeError(`PORT must be a port number from 0 to 65535, got "${port}".`));
  });
});

describe('REDIS_URL', () => {
  it('masks the password in what it prints', () => {
    expect(maskedUrl('redis://user:s3cret@cache.internal:6379/0')).toBe('redis://user:****@cache.internal:6379/0');
    expect(maskedUrl('redis://cache.internal:6379')).toBe('redis://cache.internal:6379');
  });

  it('refuses a URL that is not redis:// or rediss://', async () => {
    await expect(checkRedis({ REDIS_URL: 'http://user:pw@cache:6379' })).rejects.toThrow(new TypeError('REDIS_URL must be a redis:// or rediss:// URL, got "http://user:****@cache:6379".'));
  });

  it('says in one line, password masked, that a server that does not answer cannot be reached', async () => {
    await expect(checkRedis({ REDIS_URL: 'redis://admin:hunter2@127.0.0.1:1' })).rejects.toThrow(
      new Error('REDIS_URL redis://admin:****@127.0.0.1:1 cannot be reached: connect ECONNREFUSED 127.0.0.1:1.'),
    );
  });

  it.skipIf(REDIS_URL === undefined)('resolves when the server at REDIS_URL answers (needs REDIS_URL)', async () => {
    await expect(checkRedis({ REDIS_URL })).resolves.toBeUndefined();
  });
});

describe('npm start with a setting it cannot use', () => {
  it.each<[Record<string, string>, string]>([
    [{ NODE_ENV: 'prod' }, 'NODE_ENV must be production, development or test (or unset), got "prod".'],
    [{ HOST: '999.1.1.1' }, 'HOST must be an IP address or a host name, got "999.1.1.1".'],
    [{ REDIS_URL: 'redis://:topsecret@127.0.0.1:1' }, 'REDIS_URL redis://:****@127.0.0.1:1 cannot be reached: connect ECONNREFUSED 127.0.0.1:1.'],
  ])('%j: exits 2 with one line naming the variable', async (env, line) => {
    const started = promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/demo/main.ts'], { cwd: ROOT, env: { ...process.env, NODE_ENV: '', REDIS_URL: '', ...env } });
    await expect(started).rejects.toMatchObject({ code: 2, stdout: '', stderr: `${line}\n` });
  });
});
