/**
 * What every benchmark server does once it is listening, so that the runner can drive them all
 * alike: print the port on stdout, answer `cpu` lines on stdin with the CPU time this process
 * has used, and exit as soon as stdin closes. The runner closes stdin to stop a server; a
 * server whose runner died also sees stdin close, so none is left behind. Exiting through
 * `process.exit` (rather than dying of a signal) lets `--cpu-prof` write its profile.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** Binds to loopback on a port the OS picks; the runner learns it from `announce`. */
export function listen(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
}

export function announce(server: Server): void {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${port}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    if (line === 'cpu') process.stdout.write(`${JSON.stringify(process.cpuUsage())}\n`);
  });
  lines.on('close', () => {
    server.closeAllConnections();
    server.close();
    process.exit(0);
  });
}

/** Our server's exact answer, as the runner saved it for the servers that repeat it. */
export interface CannedResponse {
  headers: Record<string, string>;
  /** Base64, so that the bytes survive the trip through JSON exactly. */
  body: string;
}

/** The canned response whose file the runner named as this server's argument. */
export function readCannedResponse(server: string): { headers: Record<string, string>; body: Buffer } {
  const path = process.argv[2];
  if (path === undefined) throw new TypeError(`${server} needs the path of a canned response file as its argument.`);
  const canned = JSON.parse(readFileSync(path, 'utf8')) as CannedResponse;
  return { headers: canned.headers, body: Buffer.from(canned.body, 'base64') };
}
