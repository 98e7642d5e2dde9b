/**
 * The answer to a request node's HTTP parser refuses before any of our code sees it: a request
 * line with a raw byte over 0x7f, a header block over maxHeaderBytes, a malformed chunk, a
 * client too slow to send its headers. Node's own answer is an empty body with no code; every
 * other refusal of this server is `{ error: { code, message } }`, and so is this one.
 *
 * There is no request or response object at that point: the answer is written to the socket
 * as it is, and the connection closes (the parser's state is lost, so nothing after it on the
 * connection can be read).
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { HttpErrorCode, httpErrorBody } from '../../server/errors.ts';
import type { HttpError } from '../../server/errors.ts';

/** The refusal for each parser error node reports (its `code`), as node itself would pick its status. */
export function parserRefusal(code: string | undefined, maxHeaderBytes: number): [HttpError, string] {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return [HttpErrorCode.HeadersTooLarge, `The request's header block is larger than ${maxHeaderBytes} bytes.`];
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return [HttpErrorCode.PayloadTooLarge, 'The request body has chunk extensions larger than the server reads.'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [HttpErrorCode.RequestTimeout, 'The request did not arrive in the time the server allows.'];
    default:
      return [HttpErrorCode.MalformedRequest, 'The request is not well-formed HTTP/1.1 (its request line, a header or the body framing).'];
  }
}

/**
 * The 'clientError' listener: answers in JSON when the socket can still take it, else lets the
 * socket go. A response already under way on the connection (a pipelined request) cannot be
 * followed by another: node checks the same before its own answer.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex, maxHeaderBytes: number): void {
  const pending = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || pending?.headersSent === true) {
    socket.destroy();
    return;
  }
  const [refusal, message] = parserRefusal(error.code, maxHeaderBytes);
  const body = httpErrorBody(refusal, message);
  const status = refusal[1];
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}
