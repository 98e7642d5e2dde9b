/**
 * HTTPS: with `tls: { key, cert }` the server speaks TLS 1.2 and 1.3, and refuses older
 * versions. The certificate is made here, self-signed for `localhost`, by the `openssl`
 * command line into a temporary directory; without `openssl` the suite is skipped and says so.
 *
 * The client checks the certificate (it trusts exactly this one, as a CA, for the name
 * `localhost`), so a passing test also shows that the server presents the certificate it was
 * given. To show that the refusal of TLS 1.1 is the server's, the client lowers its own OpenSSL
 * security level (`DEFAULT@SECLEVEL=0`), without which it would not even offer TLS 1.1, and a
 * control shows that the same client completes a TLS 1.1 handshake with a server that allows it.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, send, startServer } from './support/httpServer.ts';
import type { StartedServer } from './support/httpServer.ts';

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const OPENSSL = hasOpenssl();
if (!OPENSSL) console.warn('http-tls.test.ts: skipped, because the openssl command is not installed (it makes the test certificate).');

const QUERY = JSON.stringify({ query: '{ hello }' });

describe.skipIf(!OPENSSL)('HTTPS', () => {
  let directory: string;
  let cert: Buffer;
  let server: StartedServer;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'graphql-glassbox-tls-'));
    const keyFile = join(directory, 'key.pem');
    const certFile = join(directory, 'cert.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', keyFile, '-out', certFile, '-days', '1', '-subj', '/CN=localhost'],
      { stdio: 'ignore' },
    );
    cert = readFileSync(certFile);
    server = await startServer({ tls: { key: readFileSync(keyFile), cert } });
  });

  afterAll(async () => {
    await server?.close();
    if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
  });

  /** A POST of `{ hello }` over a connection limited to the given TLS versions. */
  function post(versions: { minVersion?: tls.SecureVersion; maxVersion?: tls.SecureVersion }) {
    return send(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: QUERY,
      tls: { ca: cert, servername: 'localhost', ...versions },
    });
  }

  it('serves an https URL', () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/graphql$/);
  });

  it('answers a client limited to TLS 1.2 over TLS 1.2', async () => {
    const response = await post({ maxVersion: 'TLSv1.2' });
    expect(response.protocol).toBe('TLSv1.2');
    expect(response.status).toBe(200);
    expect(json(response)).toEqual({ data: { hello: 'Hello, world!' }, extensions: { cost: { requested: 0, actual: 0, limit: 1000 } } });
  });

  it('answers a client limited to TLS 1.3 over TLS 1.3', async () => {
    const response = await post({ minVersion: 'TLSv1.3' });
    expect(response.protocol).toBe('TLSv1.3');
    expect(response.status).toBe(200);
    expect(json(response)).toEqual({ data: { hello: 'Hello, world!' }, extensions: { cost: { requested: 0, actual: 0, limit: 1000 } } });
  });

  /** A TLS 1.1 handshake with 127.0.0.1:port: the version it settled on, or the error. */
  function handshakeTls11(port: number): Promise<{ connected: string | null; error: NodeJS.ErrnoException | null }> {
    return new Promise((resolve) => {
      const socket = tls.connect({
        host: '127.0.0.1',
        port,
        servername: 'localhost',
        ca: cert,
        minVersion: 'TLSv1.1',
        maxVersion: 'TLSv1.1',
        ciphers: 'DEFAULT@SECLEVEL=0',
      });
      socket.once('secureConnect', () => {
        const protocol = socket.getProtocol();
        socket.destroy();
        resolve({ connected: protocol, error: null });
      });
      socket.once('error', (error) => resolve({ connected: null, error }));
    });
  }

  it('uses a TLS 1.1 client that a server allowing TLS 1.1 does accept (the control)', async () => {
    const key = readFileSync(join(directory, 'key.pem'));
    const lenient = tls.createServer({ key, cert, minVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' }, (socket) => socket.end());
    await new Promise<void>((resolve) => lenient.listen(0, '127.0.0.1', resolve));
    try {
      const outcome = await handshakeTls11((lenient.address() as AddressInfo).port);
      expect(outcome).toEqual({ connected: 'TLSv1.1', error: null });
    } finally {
      await new Promise<void>((resolve) => lenient.close(() => resolve()));
    }
  });

  it('refuses the handshake of a client limited to TLS 1.1 with a protocol_version alert', async () => {
    const outcome = await handshakeTls11(server.port);
    expect(outcome.connected).toBeNull();
    expect(outcome.error?.code).toBe('ERR_SSL_TLSV1_ALERT_PROTOCOL_VERSION');
  });

  it('keeps serving after refusing a handshake', async () => {
    const response = await post({});
    expect(response.protocol).toBe('TLSv1.3');
    expect(response.status).toBe(200);
  });
});
