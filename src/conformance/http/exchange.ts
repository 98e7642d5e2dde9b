/**
 * One HTTP exchange of a check, recorded: the request as sent and the response as it came back
 * (status, headers, body), so that a failing check shows both. Bodies that stream (Server-Sent
 * Events, multipart) are read as they arrive, up to what the check needs or the timeout.
 */

/** The target of the HTTP checks: a GraphQL over HTTP endpoint. */
export interface HttpTargetOptions {
  /** `http://` or `https://` URL of the GraphQL endpoint. */
  url: string;
  /** A query that succeeds (`{ __typename }` is valid in every schema); checks that need one are skipped without it. */
  query?: string;
  /** A subscription that emits events on its own; the checks that need one are skipped without it. */
  subscription?: string;
  /** Headers of every request (credentials). */
  headers?: Record<string, string>;
  /** How long one request may take, body included; default 10,000 ms. */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

export interface SentRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body, cut to 2,000 characters in the record (a large document is not worth printing). */
  body?: string;
}

export interface ReceivedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** How the body ended: the server ended it, the check had read enough, or it was cut short (the timeout, a dropped connection). */
  ended: 'by the server' | 'read enough' | 'cut short';
}

export interface Exchange {
  sent: SentRequest;
  /** The response, or why none came (a refused or dropped connection, the timeout). */
  received: ReceivedResponse | { error: string };
}

/** What a check sends: method, headers and body (the target's headers are added). */
export interface Outgoing {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** How much of a streamed body to read before giving up on the rest. */
export type ReadUntil = (bodySoFar: string) => boolean;

/** Cuts long text for a report. */
export function cut(text: string, max = 2000): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}

/**
 * Sends the request and reads the response body, all of it or until `until` says enough. The body
 * in the record is the whole text read; the request body is cut to 2,000 characters.
 */
export async function exchange(target: HttpTargetOptions, init: Outgoing, until?: ReadUntil): Promise<Exchange> {
  const headers = { ...target.headers, ...init.headers };
  const sent: SentRequest = { method: init.method, url: target.url, headers, ...(init.body === undefined ? {} : { body: cut(init.body) }) };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), target.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  try {
    const response = await fetch(target.url, { method: init.method, headers, signal: controller.signal, ...(init.body === undefined ? {} : { body: init.body }) });
    const { body, ended } = await readBody(response, until);
    return { sent, received: { status: response.status, headers: Object.fromEntries(response.headers.entries()), body, ended } };
  } catch (error) {
    const message = controller.signal.aborted ? `no complete answer within ${target.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms` : describe(error);
    return { sent, received: { error: message } };
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/** The body as text: all of it, what was read once `until` held, or what came before the timeout. */
async function readBody(response: Response, until?: ReadUntil): Promise<{ body: string; ended: ReceivedResponse['ended'] }> {
  if (response.body === null) return { body: '', ended: 'by the server' };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch {
      return { body: text, ended: 'cut short' };
    }
    if (chunk.done) return { body: text + decoder.decode(), ended: 'by the server' };
    text += decoder.decode(chunk.value, { stream: true });
    if (until?.(text)) {
      await reader.cancel().catch(() => undefined);
      return { body: text, ended: 'read enough' };
    }
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}

/** The response's JSON body, or undefined if it is not JSON. */
export function jsonBody(received: ReceivedResponse): unknown {
  try {
    return JSON.parse(received.body) as unknown;
  } catch {
    return undefined;
  }
}

/** The first error message of a GraphQL response body, if it has one. */
export function firstErrorMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { errors } = body as { errors?: unknown };
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const [first] = errors as Array<{ message?: unknown }>;
  return typeof first?.message === 'string' ? first.message : undefined;
}
