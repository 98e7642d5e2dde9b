/**
 * A WebSocket upgrade written by hand, for the one check a WebSocket library cannot make: what a
 * server does when offered only a subprotocol it does not speak. A client library gives up as soon
 * as the server selects no subprotocol, so it never sees the close code the server sends next
 * (graphql-ws sends 4406 then). Here the upgrade request is plain HTTP, and after a 101 the first
 * frame the server sends is read from the bare socket.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';

/** What an upgrade offering `protocol` got. */
export type UpgradeOutcome =
  | { kind: 'refused'; status: number; body: string }
  /** 101: the subprotocol selected ('' for none), then the close the server sent, if any within the timeout. */
  | { kind: 'switched'; selected: string; closed: { code: number; reason: string } | null }
  | { kind: 'unreachable'; message: string };

export interface UpgradeRequest {
  url: string;
  protocol: string;
  headers?: Record<string, string>;
  timeoutMs: number;
}

/** Sends the upgrade request and reports how the server answered it. */
export function tryUpgrade(request: UpgradeRequest): Promise<UpgradeOutcome> {
  const url = new URL(request.url);
  const secure = url.protocol === 'wss:' || url.protocol === 'https:';
  url.protocol = secure ? 'https:' : 'http:';
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      outgoing.destroy();
      resolve({ kind: 'unreachable', message: `No answer to the upgrade within ${request.timeoutMs} ms.` });
    }, request.timeoutMs);
    const finish = (outcome: UpgradeOutcome): void => {
      clearTimeout(timer);
      resolve(outcome);
    };
    const outgoing = (secure ? https : http).request(url, {
      headers: {
        ...request.headers,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        'sec-websocket-protocol': request.protocol,
      },
    });
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => finish({ kind: 'refused', status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    outgoing.on('upgrade', (response, socket: Socket, head: Buffer) => {
      const selected = String(response.headers['sec-websocket-protocol'] ?? '');
      clearTimeout(timer);
      void firstClose(socket, head, request.timeoutMs).then((closed) => {
        socket.destroy();
        resolve({ kind: 'switched', selected, closed });
      });
    });
    outgoing.on('error', (error) => finish({ kind: 'unreachable', message: error.message }));
    outgoing.end();
  });
}

/**
 * The close frame the server sends on this socket (RFC 6455 section 5.5.1: a 2-byte code, then the
 * reason), or null if none comes within timeoutMs. Server frames are not masked; other frames
 * before the close are skipped.
 */
function firstClose(socket: Socket, head: Buffer, timeoutMs: number): Promise<{ code: number; reason: string } | null> {
  return new Promise((resolve) => {
    let buffer = head;
    const timer = setTimeout(() => done(null), timeoutMs);
    const done = (closed: { code: number; reason: string } | null): void => {
      clearTimeout(timer);
      socket.removeAllListeners('data');
      resolve(closed);
    };
    const read = (): void => {
      for (let frame = nextFrame(buffer); frame !== null; frame = nextFrame(buffer)) {
        buffer = buffer.subarray(frame.size);
        if (frame.opcode === 0x8) {
          const code = frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : 1005;
          return done({ code, reason: frame.payload.subarray(2).toString('utf8') });
        }
      }
    };
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      read();
    });
    socket.on('close', () => done({ code: 1006, reason: '' }));
    socket.on('error', () => undefined);
    read();
  });
}

/** The first whole frame in buffer, and how many bytes it took; null while incomplete. */
function nextFrame(buffer: Buffer): { opcode: number; payload: Buffer; size: number } | null {
  if (buffer.length < 2) return null;
  const opcode = (buffer[0] as number) & 0x0f;
  let length = (buffer[1] as number) & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (buffer.length < 4) return null;
    length = buffer.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (buffer.length < 10) return null;
    length = Number(buffer.readBigUInt64BE(2));
    offset = 10;
  }
  if (buffer.length < offset + length) return null;
  return { opcode, payload: buffer.subarray(offset, offset + length), size: offset + length };
}
