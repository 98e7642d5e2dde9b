/**
 * The answer to a request node's HTTP parser refuses before any of our code sees it: a request
 * line with a raw byte over 0x7f, a header block over maxHeaderBytes, a malformed chunk, a
 * client too slow to send its headers. Node's own answer is an empty body with no code; every
 * other refusal of this server is `{ error: { code, message } }`, and so is this one whenever
 * the request is known not to be a HEAD (see knownNotHead); otherwise the status alone.
 *
 * There is no request or response object at that point: the answer is written to the socket
 * as it is, and the connection closes (the parser's state is lost, so nothing after it on the
 * connection can be read).
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ErrorCode, errorBody, httpStatus } from '../../errors/codes.ts';
import { JSON_CONTENT_TYPE } from '../../jsutils/jsonContentType.ts';

/** The refusal for each parser error node reports (its `code`), as node itself would pick its status. */
export function parserRefusal(code: string | undefined, maxHeaderBytes: number): [ErrorCode, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [ErrorCode.HeadersTooLarge, `The request's header block is larger than ${maxHeaderBytes} bytes.`];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [ErrorCode.PayloadTooLarge, 'The request body has chunk extensions larger than the server reads.'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [ErrorCode.RequestTimeout, 'The request did not arrive in the time the server allows.'];
    default:
      return [ErrorCode.MalformedRequest, 'The request is not well-formed HTTP/1.1 (its request line, a header or the body framing).'];
  }
}

/**
 * The 'clientError' listener: answers in JSON when the socket can still take it, else lets the
 * socket go. A response already under way on the connection (a pipelined request) cannot be
 * followed by another: node checks the same before its own answer.
 */
export function answerClientError(error: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex, maxHeaderBytes: number): void {
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent === true) {
    socket.destroy();
    return;
  }
  const [refusal, message] = parserRefusal(error.code, maxHeaderBytes);
  const body = errorBody(refusal, message);
  const status = httpStatus(refusal);
  const statusLine = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n`;
  // The answer to a HEAD has no body, and a client would read one as garbage after it: the
  // JSON goes only to a request known not to be a HEAD. The others get node's own empty answer.
  if (!knownNotHead(error.rawPacket)) {
    socket.end(`${statusLine}Content-Length: 0\r\nConnection: close\r\n\r\n`);
    return;
  }
  socket.end(`${statusLine}Content-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * Whether the refused request is known not to be a HEAD, from the bytes node was parsing
 * (`rawPacket`: the read that failed). It may begin with earlier requests of the connection, or
 * in the middle of a request line too long for one read: only a read that starts with a method
 * and holds no HEAD request line anywhere is known.
 */
function knownNotHead(packet: Buffer | undefined): boolean {
  if (packet === undefined) return false;
  const text = packet.toString('latin1', 0, Math.min(packet.length, 1 << 20));
  return /^[A-Z]+ /.test(text) && !/(?:^|\n)HEAD /.test(text);
}
