/**
 * What the server says about its own socket, through its logger: one line once it listens
 * (where, as a URL a client can use), and one line when it cannot listen (which port or address,
 * and what to do), instead of node's unhandled 'error' event and its stack.
 *
 * A listen failure keeps node's error object and its `code` (EADDRINUSE, EACCES, EADDRNOTAVAIL:
 * node's codes, stable), its message made to say what to do; so a program that handles it
 * (`server.on('error')`, `events.once(server, 'listening')`, which rejects with it) gets the same
 * words. The logger writes it only when nothing else listens for 'error': a program that does
 * reports it its own way (the demo names its PORT variable), and the line is not written twice.
 * With nothing listening, the process is marked to exit with 1 (as an unhandled error would
 * have made it) and the server's stores are closed, so that it ends instead of idling.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What it writes through: the server's logger (lifecycle lines: written at every level but silent). */
export interface LifecycleLog {
  lifecycle(level: 'info' | 'error', message: string): void;
}

/** `server`: createServer's, with its shutdown(). */
export function announceListening(server: Server & { shutdown(): Promise<void> }, log: LifecycleLog, path: string, tls: boolean): void {
  server.on('listening', () => {
    const address = server.address();
    log.lifecycle('info', `graphql-glassbox listening on ${address === null ? '(unknown address)' : where(address, path, tls)}`);
  });
  // First, so that every other listener sees the message that says what to do.
  server.prependListener('error', (error: NodeJS.ErrnoException & { address?: string; port?: number }) => {
    const message = listenFailure(error);
    if (message === null) return;
    error.message = message;
    if (server.listenerCount('error') > 1) return;
    log.lifecycle('error', message);
    process.exitCode = 1;
    void server.shutdown().catch(() => undefined);
  });
}

/**
 * The URL of the endpoint: `http://127.0.0.1:4000/graphql`, `https://[::1]:4443/graphql`; on
 * every address (`::`, `0.0.0.0`: listen() without a host), a URL that works from this machine;
 * a Unix socket's path.
 */
function where(address: AddressInfo | string, path: string, tls: boolean): string {
  if (typeof address === 'string') return `${address} (a Unix socket), path ${path}`;
  const scheme = tls ? 'https' : 'http';
  if (address.address === '::' || address.address === '0.0.0.0') return `${scheme}://localhost:${address.port}${path} (every address)`;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${scheme}://${host}:${address.port}${path}`;
}

/** What to do about a failure to listen, or null for an error that is not one. */
export function listenFailure(error: NodeJS.ErrnoException & { address?: string; port?: number }): string | null {
  if (error.syscall !== 'listen' && error.syscall !== 'bind') return null;
  const port = error.port === undefined ? 'The port' : `Port ${error.port}`;
  const on = error.address === undefined ? '' : ` on ${error.address}`;
  switch (error.code) {
    case 'EADDRINUSE':
      return `${port}${on} is in use (EADDRINUSE): another process listens there. Stop it, or listen on another port.`;
    case 'EACCES':
      return `${port}${on} needs privileges this process does not have (EACCES): listen on a port above 1023.`;
    case 'EADDRNOTAVAIL':
      return `${error.address ?? 'The address'} is not an address of this machine (EADDRNOTAVAIL): listen on one of its addresses, or on 127.0.0.1.`;
    default:
      return null;
  }
}
