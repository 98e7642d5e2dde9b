/**
 * PreparationQueue: the document phase's work on texts the server has not seen (parsing within
 * the limits, graphql-js's validation, planning), done in turns, one client at a time.
 *
 * Why: that work is the costliest thing an anonymous client can ask for before any limit can
 * judge the operation (a document of a few kilobytes can take milliseconds to validate), and
 * Node runs every request that arrived in one poll of the event loop back to back. Eight
 * attackers' new documents arriving together would hold the loop for the sum of their work,
 * while a well-behaved client's known request (answered from the document cache in
 * microseconds) waited behind them. So a turn of the event loop prepares new texts where they
 * arrive (synchronously: a new query is answered in the same call, as createHandler promises)
 * only until SLICE_MS of such work is spent in it; after that, each new text waits in its
 * client's lane, and the lanes are served round-robin, one job from each in turn, in slices of
 * at most SLICE_MS of work; between slices the event loop runs its timers and reads its
 * sockets, where known requests are answered at once. A client that sends many new documents
 * waits behind its own, not in front of everyone else's.
 *
 * The Node adapter puts a large request body's work in the same lanes (transports/http/
 * bodyReader.ts: joining its chunks, decoding it and parsing its JSON take milliseconds a
 * megabyte), by the client's address: the authenticated client is not known yet.
 *
 * What it bounds: the event loop is held by new documents for at most one slice plus the last
 * job in it (a job is bounded by the limits parseWithLimits applies before validation), and a
 * client's new document waits for at most one job of every other client with work queued.
 */
import { AsyncResource } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';

/** The work done on queued texts per turn of the event loop, at most (plus the last job's own). */
export const SLICE_MS = 8;

export class PreparationQueue {
  /** Jobs waiting, by client; a Map keeps the order in which lanes are served. */
  private readonly lanes = new Map<string, Array<() => void>>();
  private scheduled = false;
  /** Whether a queued job is running (synchronously) now. */
  private running = false;
  /** The time spent on jobs run at once in this turn of the event loop (reset at its end). */
  private spent = 0;
  private resetScheduled = false;

  /**
   * Runs `job` at once while this turn has time left and nothing waits; else in the turn of
   * its client (`clientOf`, asked only then), answering a promise that settles as the job
   * returns or throws (or as the promise it returns settles).
   */
  runOrQueue<T>(clientOf: () => string, job: () => T | Promise<T>): T | Promise<T> {
    // Inside a queued job it is that client's turn already: its next step runs at once.
    if (this.running) return job();
    if (this.scheduled || this.spent >= SLICE_MS) return this.queue(clientOf(), job);
    const start = performance.now();
    try {
      return job();
    } finally {
      this.spent += performance.now() - start;
      if (!this.resetScheduled) {
        this.resetScheduled = true;
        setImmediate(this.reset);
      }
    }
  }

  private readonly reset = (): void => {
    this.resetScheduled = false;
    // A slice due in this turn takes what is left of the turn's budget, and starts the next afresh.
    if (!this.scheduled) this.spent = 0;
  };

  /**
   * Runs `job` in `client`'s turn; settles as the job returns or throws. It runs in the async
   * context it was queued from (AsyncLocalStorage's stores: OpenTelemetry's active span, a
   * logger's request), not in that of whatever drains the queue.
   */
  queue<T>(client: string, job: () => T | Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const task = AsyncResource.bind(() => {
        try {
          resolve(job());
        } catch (error) {
          reject(error);
        }
      });
      const lane = this.lanes.get(client);
      if (lane === undefined) this.lanes.set(client, [task]);
      else lane.push(task);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(this.drain);
      }
    });
  }

  /** Jobs waiting, in every lane. */
  get waiting(): number {
    let count = 0;
    for (const lane of this.lanes.values()) count += lane.length;
    return count;
  }

  /**
   * One slice: the first lane's first job, then that lane moved to the back, until the slice's
   * time is spent or nothing waits; the rest wait for the next turn (setImmediate runs after
   * the poll phase, so sockets are read between two slices). The slice has what is left of the
   * turn's budget: texts prepared at once earlier in the turn (before anything waited) count,
   * and a turn they spent entirely serves no lane.
   */
  private readonly drain = (): void => {
    const until = performance.now() + SLICE_MS - this.spent;
    this.spent = 0;
    for (;;) {
      if (performance.now() >= until) break;
      const next = this.lanes.entries().next();
      if (next.done === true) {
        this.scheduled = false;
        return;
      }
      const [client, lane] = next.value;
      const task = lane.shift() as () => void;
      this.lanes.delete(client);
      if (lane.length > 0) this.lanes.set(client, lane);
      this.running = true;
      try {
        task();
      } finally {
        this.running = false;
      }
    }
    if (this.lanes.size > 0) setImmediate(this.drain);
    else this.scheduled = false;
  };
}
