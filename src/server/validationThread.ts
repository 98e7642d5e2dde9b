/**
 * ValidationThread: graphql-js's validation of large new documents, done in a worker thread, so
 * that the event loop (which answers every other request) never runs it.
 *
 * Why: validation is the costliest work an anonymous client can ask for before any limit judges
 * its operation. The shape limits (analysis/documentShape.ts) keep one document's validation to
 * milliseconds, and the preparation queue (preparationQueue.ts) takes new documents in turns by
 * client, but a client that sends the costliest documents within the limits still spends the
 * event loop's time on them, in slices every other client waits behind. In a worker, that time is
 * another thread's: the event loop only parses the text (linear, within the token limit) and
 * points the worker's errors at its own document (language/portableValidation.ts, which also
 * explains why the answer is exactly validate()'s, custom scalars included).
 *
 * One worker per schema in the process (servers of the same schema share it:
 * sharedValidationThread), started on the first document that needs it and stopped after
 * IDLE_MS with nothing to do, takes one document at a time; the documents waiting are kept by
 * client and taken round-robin, one from each client in turn, so a client that sends many waits
 * behind its own. Documents of fewer than OFFLOAD_CHARACTERS are
 * validated in place: they take less time than a message to the worker and back. The document
 * a worker was on when it stopped is validated in place, and a worker that stops after answering
 * is replaced (three times at most); if the worker cannot start, every document is validated in
 * place from then on (`validate` answers undefined).
 */
import { Worker } from 'node:worker_threads';
import type { PortableSchema, PortableValidation } from '../language/portableValidation.ts';

/** Texts shorter than this are validated in the event loop's thread (about a millisecond of validation at most). */
export const OFFLOAD_CHARACTERS = 1024;

/** What the worker is started with (validationWorker.ts). */
export interface ValidationWorkerData {
  readonly schema: PortableSchema;
  readonly noIntrospection: boolean;
  readonly hideSuggestions: boolean;
}

/** A message to the worker, and its answer. */
export interface ValidationJob {
  readonly id: number;
  readonly text: string;
}
export interface ValidationAnswer {
  readonly id: number;
  readonly found: PortableValidation;
}

interface Waiting {
  readonly text: string;
  readonly settle: (found: PortableValidation | undefined) => void;
}

/** Times a worker that stopped after answering is replaced; past that, validation stays in place. */
const MAX_RESTARTS = 3;
/** A worker with nothing to do for this long is stopped (and started again on the next need). */
const IDLE_MS = 10_000;

/**
 * The worker: validationWorker.js when this package is built, validationWorkerFromSources.mjs
 * when it runs from its `.ts` sources. Its heap is kept small: a document within the limits
 * needs a few megabytes to validate, and V8's default young generation would cost the process
 * about 50 MB more resident memory (4 MB: about 20 MB, for a validation about a third slower).
 */
function startWorker(workerData: ValidationWorkerData): Worker {
  const fromSources = import.meta.url.endsWith('.ts');
  const module = new URL(fromSources ? './validationWorkerFromSources.mjs' : './validationWorker.js', import.meta.url);
  return new Worker(module, { workerData, resourceLimits: { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 128 } });
}

export class ValidationThread {
  private worker: Worker | null = null;
  /** Texts the worker running now has answered. */
  private answers = 0;
  private restarts = 0;
  /** Set once the worker could not start (or stopped too often, or close()): every text is validated in place after. */
  private failed = false;
  private nextId = 0;
  /** The job the worker is on. */
  private current: (Waiting & { readonly id: number }) | null = null;
  /** Texts waiting, by client; a Map keeps the order in which clients are served. */
  private readonly lanes = new Map<string, Waiting[]>();
  /** Answers promised, by text: a text asked for twice while waiting is validated once. */
  private readonly promised = new Map<string, Promise<PortableValidation | undefined>>();
  private idleTimer: NodeJS.Timeout | null = null;

  constructor(private readonly data: ValidationWorkerData) {}

  /**
   * The worker's validation of `text`, in `client`'s turn; undefined when the worker is not
   * available (then the caller validates in place).
   */
  validate(client: string, text: string): Promise<PortableValidation | undefined> {
    const promised = this.promised.get(text);
    if (promised !== undefined) return promised;
    const answer = new Promise<PortableValidation | undefined>((resolve) => {
      const waiting: Waiting = {
        text,
        settle: (found) => {
          this.promised.delete(text);
          resolve(found);
        },
      };
      if (this.failed) return waiting.settle(undefined);
      const lane = this.lanes.get(client);
      if (lane === undefined) this.lanes.set(client, [waiting]);
      else lane.push(waiting);
      if (this.current === null) this.sendNext();
    });
    this.promised.set(text, answer);
    return answer;
  }

  /** Whether texts go to the worker (false once it failed). */
  get available(): boolean {
    return !this.failed;
  }

  /** Stops the worker; texts waiting are answered undefined (validated in place). */
  close(): Promise<void> {
    const worker = this.worker;
    this.clearIdle();
    this.fail();
    return worker === null ? Promise.resolve() : worker.terminate().then(() => undefined);
  }

  /** The next text, from the first client's lane, that client's lane moved to the back. */
  private sendNext(): void {
    const next = this.lanes.entries().next();
    if (next.done === true) {
      this.current = null;
      // Idle: the worker does not keep the process alive, and stops after a while.
      this.worker?.unref();
      if (this.worker !== null && this.idleTimer === null) this.idleTimer = setTimeout(this.stopIdle, IDLE_MS).unref();
      return;
    }
    this.clearIdle();
    const [client, lane] = next.value;
    const waiting = lane.shift() as Waiting;
    this.lanes.delete(client);
    if (lane.length > 0) this.lanes.set(client, lane);
    const worker = this.started();
    if (worker === null) return waiting.settle(undefined);
    this.current = { ...waiting, id: this.nextId++ };
    worker.ref();
    worker.postMessage({ id: this.current.id, text: waiting.text } satisfies ValidationJob);
  }

  private readonly answered = (answer: ValidationAnswer): void => {
    const current = this.current;
    if (current === null || current.id !== answer.id) return;
    this.current = null;
    this.answers++;
    current.settle(answer.found);
    // settle() resolves a promise: nothing has run since, and the worker is free.
    this.sendNext();
  };

  private readonly stopIdle = (): void => {
    this.idleTimer = null;
    const worker = this.worker;
    // Not a failure: stopped() ignores a worker that is no longer this.worker.
    this.worker = null;
    void worker?.terminate();
  };

  private clearIdle(): void {
    if (this.idleTimer === null) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  /** The worker, started on first need; null when it cannot start. */
  private started(): Worker | null {
    if (this.worker !== null || this.failed) return this.worker;
    try {
      const worker = startWorker(this.data);
      worker.on('message', this.answered);
      worker.on('error', () => this.stopped(worker));
      worker.on('exit', () => this.stopped(worker));
      this.worker = worker;
      this.answers = 0;
      return worker;
    } catch {
      this.fail();
      return null;
    }
  }

  /**
   * The worker stopped (it threw, or ran out of its heap): the text it was on is validated in
   * place. One that had answered is replaced for the texts waiting, a few times; one that never
   * answered could not start, and validation stays in place.
   */
  private stopped(worker: Worker): void {
    if (worker !== this.worker) return;
    if (this.answers === 0 || this.restarts >= MAX_RESTARTS) return this.fail();
    this.restarts++;
    this.worker = null;
    const current = this.current;
    this.current = null;
    current?.settle(undefined);
    this.sendNext();
  }

  /** From now on every text is validated in place: the one in the worker and those waiting are answered undefined. */
  private fail(): void {
    this.failed = true;
    this.worker = null;
    const current = this.current;
    this.current = null;
    current?.settle(undefined);
    for (const lane of this.lanes.values()) for (const waiting of lane) waiting.settle(undefined);
    this.lanes.clear();
  }
}

/**
 * The threads in use, by what their worker is started with: servers of one schema in one process
 * (tests, a server per tenant, an HTTP and an HTTPS server) share one worker, not one each.
 */
const shared = new Map<string, { thread: ValidationThread; users: number }>();

/** The thread for `data`, shared; `release` once it is no longer needed (the last release stops it). */
export function sharedValidationThread(data: ValidationWorkerData): { thread: ValidationThread; release: () => Promise<void> } {
  const key = JSON.stringify(data);
  let entry = shared.get(key);
  if (entry === undefined || !entry.thread.available) {
    entry = { thread: new ValidationThread(data), users: 0 };
    shared.set(key, entry);
  }
  entry.users++;
  const used = entry;
  let released = false;
  const release = (): Promise<void> => {
    if (released) return Promise.resolve();
    released = true;
    used.users--;
    if (used.users > 0) return Promise.resolve();
    if (shared.get(key) === used) shared.delete(key);
    return used.thread.close();
  };
  return { thread: entry.thread, release };
}
