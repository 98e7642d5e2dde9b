/**
 * The server's log: one JSON object per line, for request lines (one per HTTP request) and for
 * the pipeline's own entries (errors), so that one collector reads both.
 *
 * What a line may hold is the point of this module. A request line has the method, the path
 * WITHOUT its query string (a GET carries its query and variables there), the status, the
 * duration, the operation's type and name, the request id and the caller's identity id:
 * never a header, a token, an API key, a body, a query text or variables. Error entries carry
 * the error's message and stack, in production too: clients get `Unexpected error.` and an id,
 * and the log is where the operator finds what happened (resolver messages are the schema
 * author's text, and a stack holds code locations, not request data).
 *
 * Request ids: a sane incoming `X-Request-ID` (1 to 128 of `A-Z a-z 0-9 . _ : -`) is kept, so
 * that an id set by a proxy or the client follows the request; otherwise one is made from a
 * random per-process prefix and a counter (unique, and far cheaper than a UUID per request).
 *
 * Writing never blocks the event loop. The default destination is standard output through
 * asynchronous writes (process.stdout writes synchronously to files and pipes on Linux): the
 * lines of one turn of the event loop, and any written while a write is in flight, go out in
 * one write, each line whole. A destination that cannot keep up has lines dropped past
 * MAX_PENDING_CHARS (counted, for metrics) rather than memory grown without bound.
 */
import { randomBytes } from 'node:crypto';
import { write as fsWrite } from 'node:fs';
import type { LogEntry, TraceIds } from './logEntry.ts';
import { activeTraceIds } from './openTelemetry.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';
export const LOG_LEVELS: ReadonlyArray<LogLevel> = ['debug', 'info', 'warn', 'error', 'silent'];

/**
 * Where lines go: a function called with each line (no line break); a stream written with each
 * line and its line break; or `{ fd }`, a file descriptor written asynchronously as standard
 * output is by default (`{ fd: 2 }`: standard error).
 */
export type LogDestination = ((line: string) => void) | { write(chunk: string): unknown } | { fd: number };

/** The library's default: warnings and errors only (see docs/operations.md for why). */
export const DEFAULT_LOG_LEVEL: LogLevel = 'warn';

const SEVERITY: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function readLogLevel(value: unknown, name = 'logLevel'): LogLevel {
  if (typeof value === 'string' && (LOG_LEVELS as ReadonlyArray<string>).includes(value)) return value as LogLevel;
  throw new TypeError(`${name} must be one of ${LOG_LEVELS.join(', ')}; got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}.`);
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** 12 hexadecimal digits, drawn once per process: ids of several instances do not collide. */
const ID_PREFIX = randomBytes(6).toString('hex');
let idCounter = 0;

/** The request's id: its X-Request-ID when sane, else a new one (the counter in decimal: a radix conversion costs more). */
export function requestIdFrom(header: string | string[] | undefined): string {
  if (typeof header === 'string' && REQUEST_ID.test(header)) return header;
  return ID_PREFIX + '-' + ++idCounter;
}

/** What a request line says about the operation the request ran (HttpOperation has it all). */
export interface LoggedOperation {
  readonly identity: { readonly id: string };
  readonly params: { readonly operationName: string | null };
  readonly operationType: string | null;
  readonly operationName: string | undefined;
}

/** Request lines' paths are cut to this many characters: the path is the client's to choose. */
const MAX_PATH = 2048;

export class JsonLogger {
  readonly level: LogLevel;
  /** Whether request lines (info) are written. */
  readonly requests: boolean;
  /** Whether the server's own routes (probes, metrics) get request lines too (debug). */
  readonly operationalRequests: boolean;
  private readonly severity: number;
  private readonly destination: (line: string) => void;
  private readonly sink: FdSink | null;
  /** The pipeline's `log`, as JSON lines. */
  readonly entry: (entry: LogEntry) => void;

  constructor(level: LogLevel = DEFAULT_LOG_LEVEL, destination?: LogDestination) {
    this.level = readLogLevel(level);
    this.severity = SEVERITY[this.level];
    this.requests = this.severity <= SEVERITY.info;
    this.operationalRequests = this.severity <= SEVERITY.debug;
    if (destination === undefined) {
      this.sink = this.severity < SEVERITY.silent ? standardOutput() : null;
      const sink = this.sink;
      this.destination = (line) => sink?.write(line);
    } else if (typeof destination === 'function') {
      this.sink = null;
      this.destination = destination;
    } else if (destination !== null && typeof destination === 'object' && 'fd' in destination) {
      if (!Number.isInteger(destination.fd) || destination.fd < 0) throw new TypeError(`logger.fd must be a file descriptor, got ${String(destination.fd)}.`);
      const sink = destination.fd === 1 ? standardOutput() : new FdSink(destination.fd);
      this.sink = sink;
      this.destination = (line) => sink.write(line);
    } else if (destination !== null && typeof destination === 'object' && typeof destination.write === 'function') {
      this.sink = null;
      this.destination = (line) => void destination.write(line + '\n');
    } else {
      throw new TypeError(`logger must be a function of a line, a stream with write(), or { fd }, got ${String(destination)}.`);
    }
    this.entry = (entry) => this.writeEntry(entry);
  }

  /** Lines the default destination dropped because it could not keep up. */
  get dropped(): number {
    return this.sink?.dropped ?? 0;
  }

  /** One HTTP request's line (only called when `requests`). */
  request(
    method: string,
    url: string,
    status: number,
    durationMs: number,
    requestId: string,
    operation: LoggedOperation | null,
    level: 'info' | 'debug' = 'info',
    trace: TraceIds | null = null,
  ): void {
    const queryStart = url.indexOf('?');
    let path = queryStart === -1 ? url : url.slice(0, queryStart);
    if (path.length > MAX_PATH) path = path.slice(0, MAX_PATH);
    const type = operation?.operationType ?? null;
    const name = operation === null ? null : (operation.operationName ?? operation.params.operationName);
    const identity = operation === null ? null : operation.identity.id;
    this.write(
      '{"time":"' + isoNow() + '","level":"' + level + '","msg":"request","method":' + quote(method) + ',"path":' + quote(path) +
        ',"status":' + status + ',"durationMs":' + milliseconds(durationMs) + ',"operationType":' + (type === null ? 'null' : '"' + type + '"') +
        ',"operationName":' + (name == null ? 'null' : quote(name)) + ',"requestId":"' + requestId + '","identity":' + (identity == null ? 'null' : quote(identity)) +
        // Ids are hexadecimal (the API checks them): written as they are.
        (trace === null ? '}' : ',"traceId":"' + trace.traceId + '","spanId":"' + trace.spanId + '"}'),
    );
  }

  /**
   * A line about the server itself (listening, or unable to): written at every level but
   * `silent`, since a server that starts must say where it is, or why it is not, whatever
   * request lines and warnings were asked for.
   */
  lifecycle(level: 'info' | 'error', message: string): void {
    if (this.level === 'silent') return;
    this.write(JSON.stringify({ time: isoNow(), level, msg: message }));
  }

  /** An entry of the pipeline's (or the server's) `log`: written when its level is on. */
  private writeEntry(entry: LogEntry): void {
    const level: LogLevel = entry.level === 'error' ? 'error' : entry.level === 'info' ? 'info' : 'warn';
    if (SEVERITY[level] < this.severity) return;
    const line: Record<string, unknown> = { time: isoNow(), level, msg: String(entry.message) };
    if (entry.requestId !== undefined) line['requestId'] = entry.requestId;
    // Joined to its trace: the span active where the entry was made (an operation's, a request's).
    const trace = activeTraceIds();
    if (trace !== null) {
      line['traceId'] = trace.traceId;
      line['spanId'] = trace.spanId;
    }
    if (entry.error !== undefined) {
      const error = entry.error;
      line['err'] = error instanceof Error ? { message: error.message, stack: error.stack } : { message: String(error) };
    }
    let text: string;
    try {
      text = JSON.stringify(line);
    } catch {
      text = JSON.stringify({ time: line['time'], level, msg: line['msg'] });
    }
    this.write(NON_ASCII.test(text) ? text.replace(NON_ASCII_ALL, escapeChar) : text);
  }

  private write(line: string): void {
    try {
      this.destination(line);
    } catch {
      // A logger must never take a request down with it.
    }
  }

  /** Resolves once the default destination has written every line given so far (at once for any other). */
  flush(): Promise<void> {
    return this.sink?.flush() ?? Promise.resolve();
  }
}

let second = -1;
let secondPrefix = '';

/**
 * The time now in ISO 8601 (`2025-05-04T09:12:44.312Z`): the date and the time to the second are
 * formatted once a second (V8 formats dates through printf), the milliseconds added to them.
 */
function isoNow(): string {
  const now = Date.now();
  const ms = now % 1000;
  if (now - ms !== second) {
    second = now - ms;
    secondPrefix = new Date(second).toISOString().slice(0, 20);
  }
  return secondPrefix + (ms < 10 ? '00' : ms < 100 ? '0' : '') + ms + 'Z';
}

/**
 * A duration with three decimals, by integer arithmetic: Number#toFixed formats through C's
 * printf, which costs more than the rest of the line.
 */
function milliseconds(durationMs: number): string {
  const micros = Math.round(durationMs * 1000);
  const whole = Math.floor(micros / 1000);
  const fraction = micros - whole * 1000;
  return whole + (fraction < 10 ? '.00' : fraction < 100 ? '.0' : '.') + fraction;
}

const NON_ASCII = /[^\x00-\x7f]/;
const NON_ASCII_ALL = /[^\x00-\x7f]/g;

function escapeChar(char: string): string {
  return '\\u' + char.charCodeAt(0).toString(16).padStart(4, '0');
}

/**
 * A JSON string, in ASCII: as it is when nothing in it needs escaping (the usual path or name),
 * else JSON.stringify's with anything beyond ASCII escaped too. Lines are ASCII, so they are
 * written as Latin-1, one byte a character, without measuring them as UTF-8 first.
 */
function quote(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) {
      const json = JSON.stringify(text);
      return NON_ASCII.test(json) ? json.replace(NON_ASCII_ALL, escapeChar) : json;
    }
  }
  return '"' + text + '"';
}

/** Characters of lines waiting for the destination before new ones are dropped (about 8 MB). */
export const MAX_PENDING_CHARS = 8 * 1024 * 1024;

/**
 * Lines to a file descriptor with asynchronous writes (libuv's thread pool): one write in
 * flight at a time, the lines that come meanwhile joined into the next. A descriptor that is
 * non-blocking and full (EAGAIN) is tried again shortly; one that fails otherwise (a closed
 * pipe) drops what it was given.
 */
export class FdSink {
  dropped = 0;
  private pending = '';
  private writing = false;
  private scheduled = false;
  private waiting: Array<() => void> = [];
  /** Made once: a turn's lines are scheduled with it, not with a closure each. */
  private readonly onTurnEnd = (): void => {
    this.scheduled = false;
    this.next();
  };

  constructor(private readonly fd: number) {}

  write(line: string): void {
    if (this.pending.length > MAX_PENDING_CHARS) {
      this.dropped++;
      return;
    }
    this.pending += line + '\n';
    if (!this.writing && !this.scheduled) {
      // Lines of the same turn go out together.
      this.scheduled = true;
      setImmediate(this.onTurnEnd);
    }
  }

  flush(): Promise<void> {
    if (this.pending === '' && !this.writing) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private next(): void {
    if (this.writing) return;
    if (this.pending === '') {
      const waiting = this.waiting;
      this.waiting = [];
      for (const resolve of waiting) resolve();
      return;
    }
    // Every line is ASCII (see quote): one byte a character.
    const bytes = Buffer.from(this.pending, 'latin1');
    this.pending = '';
    this.writing = true;
    this.send(bytes, 0);
  }

  private send(bytes: Buffer, offset: number): void {
    fsWrite(this.fd, bytes, offset, bytes.length - offset, null, (error, written) => {
      if (error !== null) {
        if (error.code === 'EAGAIN') {
          setTimeout(() => this.send(bytes, offset), 10);
          return;
        }
        // The destination is gone: these lines are lost, and counted.
        this.dropped += countLines(bytes, offset);
      } else if (offset + written < bytes.length) {
        this.send(bytes, offset + written);
        return;
      }
      this.writing = false;
      this.next();
    });
  }
}

function countLines(bytes: Buffer, offset: number): number {
  let lines = 0;
  for (let i = offset; i < bytes.length; i++) if (bytes[i] === 0x0a) lines++;
  return lines;
}

let stdout: FdSink | null = null;

/** Standard output, shared by every server of the process (their lines are whole, in order). */
function standardOutput(): FdSink {
  stdout ??= new FdSink(1);
  return stdout;
}
