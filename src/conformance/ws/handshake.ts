/**
 * A WebSocket upgrade written by hand, for the one check a WebSocket library cannot make: what a
 * server does when offered only a subprotocol it does not speak. A client library gives up as soon
 * as the server selects no subprotocol, so it never sees the close code the server sends next
 * (graphql-ws sends 4406 then). Here the upgrade request is plain HTTP, and after a 101 the first
 * frame the server sends is read from the bare socket. `upgrade` stops at the 101 and hands the
 * socket over, for a client that reads and writes the frames itself.
 */
import { createHash, randomBytes } from 'node:crypto';
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

/** How the server answered an upgrade request, the socket of a 101 still open. */
export type UpgradeAnswer =
  | Exclude<UpgradeOutcome, { kind: 'switched' }>
  /**
   * 101: the subprotocol selected ('' for none); whether its sec-websocket-accept is the one the
   * key asks for (RFC 6455 section 4.2.2); the socket, its reading and closing the caller's now;
   * and the bytes that came after the 101's headers, the start of the server's first frames.
   */
  | { kind: 'switched'; selected: string; keyAccepted: boolean; socket: Socket; head: Buffer };

/** What RFC 6455 section 1.3 appends to the key before hashing it into sec-websocket-accept. */
const ACCEPT_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** Sends the upgrade request and reports how the server answered it. */
export async function tryUpgrade(request: UpgradeRequest): Promise<UpgradeOutcome> {
  const answer = await upgrade(request);
  if (answer.kind !== 'switched') return answer;
  const closed = await firstClose(answer.socket, answer.head, request.timeoutMs);
  answer.socket.destroy();
  return { kind: 'switched', selected: answer.selected, closed };
}

/** Sends the upgrade request; a 101 hands its socket over, unread. */
export function upgrade(request: UpgradeRequest): Promise<UpgradeAnswer> {
  const url = new URL(request.url);
  const secure = url.protocol === 'wss:' || url.protocol === 'https:';
  url.protocol = secure ? 'https:' : 'http:';
  const key = randomBytes(16).toString('base64');
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      outgoing.destroy();
      resolve({ kind: 'unreachable', message: `No answer to the upgrade within ${request.timeoutMs} ms.` });
    }, request.timeoutMs);
    const finish = (answer: UpgradeAnswer): void => {
      clearTimeout(timer);
      resolve(answer);
    };
    const outgoing = (secure ? https : http).request(url, {
      headers: {
        ...request.headers,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': key,
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
      const keyAccepted = response.headers['sec-websocket-accept'] === createHash('sha1').update(`${key}${ACCEPT_GUID}`).digest('base64');
      finish({ kind: 'switched', selected, keyAccepted, socket, head });
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

/** The first whole frame in buffer (a server's: unmasked), and how many bytes it took; null while incomplete. */
export function nextFrame(buffer: Buffer): { opcode: number; payload: Buffer; size: number } | null {
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
