/** One line of the server's own log (faults and lifecycle), as every layer hands it to the `log` option. */
export interface LogEntry {
  level: 'error' | 'info';
  message: string;
  requestId?: string;
  error?: unknown;
}
