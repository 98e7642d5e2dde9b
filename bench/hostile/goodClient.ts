/**
 * The well-behaved client of the hostile-load benchmark (index.ts), in a process of its own so
 * that its latencies are the server's and not the attacking process's: building and sending
 * megabyte messages holds that process's event loop, which would count against the server.
 *
 * Each IPC message `{ port, ms }` runs `{ __typename }` one request after another for `ms`, from
 * its own forwarded address, and is answered with the latencies in milliseconds.
 */
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const body = JSON.stringify({ query: '{ __typename }' });

function once(port: number): Promise<void> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/graphql',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': String(body.length), 'x-forwarded-for': '198.51.100.1' },
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
