/** One line of the server's own log (faults and lifecycle), as every layer hands it to the `log` option. */
export interface LogEntry {
  level: 'error' | 'info';
  message: string;
  requestId?: string;
  error?: unknown;
}

/** A span's ids, as log lines carry them to be joined to their trace (OpenTelemetry's, when on). */
export interface TraceIds {
  readonly traceId: string;
  readonly spanId: string;
}
