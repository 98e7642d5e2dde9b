/**
 * One HTTP POST of a webhook attempt. It never throws, never follows a redirect, never reads
 * more than MAX_RESPONSE_BYTES of the answer and never waits past the attempt's time: whatever
 * happens becomes a status, an error message, or both.
 */
import http from 'node:http';
import https from 'node:https';
import { FORBIDDEN_ADDRESS_CODE } from './callbackUrl.ts';

/** The part of a receiver's answer kept in the attempt's record. */
export const MAX_RESPONSE_BYTES = 1024;

export interface PostAnswer {
  status: number | null;
  error: string | null;
  body: string;
}

export function post(url: URL, headers: Record<string, string>, body: string, agent: http.Agent, timeoutMs: number): Promise<PostAnswer> {
  return new Promise((resolve) => {
    const transport = url.protocol === 'https:' ? https : http;
    let settled = false;
    const finish = (status: number | null, error: string | null, answer: Buffer): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      // At most MAX_RESPONSE_BYTES, cut before a character the limit splits.
      resolve({ status, error, body: new TextDecoder().decode(answer.subarray(0, MAX_RESPONSE_BYTES), { stream: true }) });
    };
    const request = transport.request(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent,
    });
    const deadline = setTimeout(() => {
      request.destroy();
      finish(null, `No answer within ${timeoutMs} ms.`, Buffer.alloc(0));
    }, timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish(null, connectionError(error), Buffer.alloc(0)));
    request.on('response', (response) => readAnswer(response, finish));
    request.end(body);
  });
}

/** The answer's status and its first bytes; a redirect is an error, since it is not followed. */
function readAnswer(response: http.IncomingMessage, finish: (status: number | null, error: string | null, answer: Buffer) => void): void {
  const status = response.statusCode ?? null;
  const chunks: Buffer[] = [];
  let size = 0;
  const error = status !== null && status >= 300 && status < 400 ? `Redirects are not followed (Location: ${String(response.headers.location ?? 'none')}).` : null;
  response.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
    // Enough of an endless answer: the status is what counts.
    if (size > MAX_RESPONSE_BYTES) {
      response.destroy();
      finish(status, error, Buffer.concat(chunks));
    }
  });
  response.on('end', () => finish(status, error, Buffer.concat(chunks)));
  response.on('error', () => finish(status, error, Buffer.concat(chunks)));
  response.on('close', () => finish(status, error, Buffer.concat(chunks)));
}

function connectionError(error: NodeJS.ErrnoException): string {
  if (error.code === FORBIDDEN_ADDRESS_CODE) return error.message;
  return `The connection failed: ${error.code ?? error.message}.`;
}
