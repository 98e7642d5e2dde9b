/**
 * BodyReader (src/transports/http/bodyReader.ts): a body over LARGE_BODY bytes is joined,
 * decoded and handed on inside its client's turn (the `inTurn` handler, which the Node adapter
 * gives the preparation queue's lanes); a smaller one is handed on at once. Whether it arrives
 * with its headers or streams in after them, and whether it is valid UTF-8 or refused.
 */
import { once } from 'node:events';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '../src/errors/codes.ts';
import { BodyReader, LARGE_BODY } from '../src/transports/http/bodyReader.ts';
import { NodeRequest } from '../src/transports/http/nodeRequest.ts';

interface Seen {
  /** What happened, in order: `turn` when a job was handed to inTurn, `received <length>`, `refused <code>`. */
  events: string[];
  /** The jobs handed to inTurn, not yet run. */
  jobs: Array<() => void>;
}

const servers: Array<ReturnType<typeof createServer>> = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A node server reading bodies with a BodyReader whose handlers record what they are given. */
async function readerServer(): Promise<{ seen: Seen; post: (body: Buffer, chunked?: boolean) => Promise<void> }> {
  const seen: Seen = { events: [], jobs: [] };
  const answer = (request: NodeRequest) => request.res.end();
  const reader = new BodyReader(4 * 1024 * 1024, {
    received: (request) => {
      seen.events.push(`received ${request.body?.length ?? 0}`);
      answer(request);
    },
    refuse: (request, code) => {
      seen.events.push(`refused ${code}`);
      answer(request);
    },
    inTurn: (_request, job) => {
      seen.events.push('turn');
      seen.jobs.push(job);
    },
  });
  const server = createServer((req, res) => reader.read(new NodeRequest(req, res, req.method ?? 'GET', req.url ?? '/', req.headers, 0, { kind: 'graphql' })));
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const post = (body: Buffer, chunked = false) =>
    new Promise<void>((resolve, reject) => {
      const headers = chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) };
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/graphql', headers }, (res) => {
        res.resume();
        res.on('end', resolve);
      });
      req.on('error', reject);
      // Chunked: the body streams in after the headers, in pieces.
      if (chunked) for (let at = 0; at < body.length; at += 16 * 1024) req.write(body.subarray(at, at + 16 * 1024));
      else req.write(body);
      req.end();
    });
  return { seen, post };
}

/** Runs the jobs handed to inTurn as the queue would, once the body has been read. */
async function runJobsWhenHanded(seen: Seen): Promise<void> {
  while (seen.jobs.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(seen.events.at(-1)).toBe('turn');
  seen.jobs.shift()?.();
}

describe('BodyReader', () => {
  it.each([false, true])('hands a body of LARGE_BODY bytes on at once (chunked: %s)', async (chunked) => {
    const { seen, post } = await readerServer();
    await post(Buffer.alloc(LARGE_BODY, 'a'), chunked);
    expect(seen.events).toEqual([`received ${LARGE_BODY}`]);
  });

  it.each([false, true])('decodes and hands on a larger body only in its turn (chunked: %s)', async (chunked) => {
    const { seen, post } = await readerServer();
    const size = 3 * LARGE_BODY + 8;
    const posted = post(Buffer.alloc(size, 'é'), chunked);
    await runJobsWhenHanded(seen);
    await posted;
    // 'é' is two bytes in UTF-8: the body decoded in the job is half as many characters.
    expect(seen.events).toEqual(['turn', `received ${size / 2}`]);
  });

  it('refuses a larger body that is not UTF-8 in its turn, with INVALID_UTF8', async () => {
    const { seen, post } = await readerServer();
    const body = Buffer.alloc(LARGE_BODY + 1, 'a');
    body[LARGE_BODY] = 0xff;
    const posted = post(body);
    await runJobsWhenHanded(seen);
    await posted;
    expect(seen.events).toEqual(['turn', `refused ${ErrorCode.InvalidUtf8}`]);
  });
});
