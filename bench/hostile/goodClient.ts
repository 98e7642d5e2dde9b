/**
 * The well-behaved client of the hostile-load benchmark (index.ts), in a process of its own so
 * that its latencies are the server's and not the attacking process's: building and sending
 * megabyte messages holds that process's event loop, which would count against the server.
 *
 * Each IPC message `{ port, ms }` runs `{ __typename }` one request after another for `ms`, and
 * is answered with the latencies in milliseconds.
 *
 * It stands for the server's other users, each within its budget: each request comes from the
 * next of 4,096 forwarded addresses (198.18.0.0/20, the benchmarking range of RFC 2544). From
 * one address it would be over a per-client budget within a second (it sends thousands of
 * requests a second), and its latencies would be those of its own 429s. (The `open` server does
 * not read X-Forwarded-For: there every request is the socket's peer, as the attacker's are.)
 */
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const body = JSON.stringify({ query: '{ __typename }' });

/** How many addresses the requests take in turn, and the next one's index. */
const ADDRESSES = 4096;
let next = 0;

function once(port: number): Promise<void> {
  const index = next++ % ADDRESSES;
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/graphql',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': String(body.length), 'x-forwarded-for': `198.18.${index >> 8}.${index & 255}` },
      },
      (res) => {
        res.resume();
        res.on('end', resolve);
        res.on('error', () => resolve());
      },
    );
    req.on('error', () => resolve());
    req.end(body);
  });
}

process.on('message', (message: { port: number; ms: number }) => {
  void (async () => {
    const until = Date.now() + message.ms;
    const latencies: number[] = [];
    while (Date.now() < until) {
      const started = performance.now();
      await once(message.port);
      latencies.push(performance.now() - started);
    }
    process.send?.(latencies);
  })();
});
process.on('disconnect', () => {
  agent.destroy();
  process.exit(0);
});
