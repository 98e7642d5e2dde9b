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
 * One worker, started on the first document that needs it, takes one document at a time; the
 * documents waiting are kept by client and taken round-robin, one from each client in turn, so a
 * client that sends many waits behind its own. Documents of fewer than OFFLOAD_CHARACTERS are
 * validated in place: they take less time than a message to the worker and back. If the worker
 * cannot start or stops, every document is validated in place from then on (`validate` answers
 * undefined), as it was before the worker existed.
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

/** The worker: validationWorker.js when this package is built, validationWorkerFromSources.mjs when it runs from its `.ts` sources. */
function startWorker(workerData: ValidationWorkerData): Worker {
  const fromSources = import.meta.url.endsWith('.ts');
  return new Worker(new URL(fromSources ? './validationWorkerFromSources.mjs' : './validationWorker.js', import.meta.url), { workerData });
}

export class ValidationThread {
  private worker: Worker | null = null;
  /** Set once the worker could not start or stopped: every text is validated in place after. */
  private failed = false;
  private nextId = 0;
  /** The job the worker is on. */
  private current: (Waiting & { readonly id: number }) | null = null;
  /** Texts waiting, by client; a Map keeps the order in which clients are served. */
  private readonly lanes = new Map<string, Waiting[]>();
  /** Answers promised, by text: a text asked for twice while waiting is validated once. */
  private readonly promised = new Map<string, Promise<PortableValidation | undefined>>();

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
    this.fail();
    return worker === null ? Promise.resolve() : worker.terminate().then(() => undefined);
  }

  /** The next text, from the first client's lane, that client's lane moved to the back. */
  private sendNext(): void {
    const next = this.lanes.entries().next();
    if (next.done === true) {
      this.current = null;
      // Idle: the worker does not keep the process alive.
      this.worker?.unref();
      return;
    }
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
    current.settle(answer.found);
    if (this.current === null) this.sendNext();
  };

  /** The worker, started on first need; null when it cannot start. */
  private started(): Worker | null {
    if (this.worker !== null || this.failed) return this.worker;
    try {
      const worker = startWorker(this.data);
      worker.on('message', this.answered);
      worker.on('error', () => this.fail());
      worker.on('exit', () => this.fail());
      this.worker = worker;
      return worker;
    } catch {
      this.fail();
      return null;
    }
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
