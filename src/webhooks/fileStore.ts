/**
 * The embedded webhook store: the state in memory, every change appended to a journal file
 * (`webhooks.jsonl` in `dir`, one JSON line per change) and flushed to disk (fdatasync) before
 * the change is acknowledged. After a crash the journal is replayed; a line cut short by the
 * crash (the only one that can be) is dropped, and the file truncated to the last whole line.
 *
 * Why a journal of our own rather than an embedded database: the npm packages that give SQLite
 * or LMDB build native code at install (which npm 11 does not run unless approved), and the
 * pure-JavaScript databases keep their data in memory and write it out whole, with no fsync
 * per transaction. What webhooks need of a database is small: append, flush, replay; and a
 * journal does exactly that with one sequential write per batch of changes.
 *
 * Group commit: changes made while a flush is under way wait for the next one, which writes
 * them all with one write and one fdatasync; so a burst of events costs a few flushes, not one
 * per event. The journal is rewritten from the state (a new file, fsynced, renamed over the
 * old one, the directory fsynced) when it holds many more lines than the state it describes.
 *
 * What is kept: every endpoint; every pending delivery with its event; and of finished ones,
 * each endpoint's most recent `keepDeliveries` (100) with their events, for visibility and
 * manual redelivery. The file holds the signing secrets: it is created readable by its owner only.
 */
import { appendFileSync, closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, truncateSync, writeSync } from 'node:fs';
import { open as openFile } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { applyEffect } from './store.ts';
import type { AttemptOutcome, ClaimedDelivery, Delivery, WebhookEndpoint, WebhookEvent, WebhookStore } from './store.ts';
import { positiveInteger } from '../jsutils/positiveInteger.ts';

export interface FileStoreOptions {
  /** Where the journal lives (created if missing). */
  dir: string;
  /** Finished deliveries kept per endpoint (default 100). */
  keepDeliveries?: number;
  /** Flush every change to disk before acknowledging it (default true; tests of other things may turn it off). */
  fsync?: boolean;
}

type JournalLine =
  | { t: 'endpoint'; endpoint: WebhookEndpoint }
  | { t: 'remove'; id: string }
  | { t: 'event'; event: WebhookEvent; deliveries: Array<[id: string, endpointId: string]>; at: number }
  | { t: 'attempt'; id: string; attempt: Delivery['attempts'][number]; status: Delivery['status']; next: number | null }
  | { t: 'delivery'; delivery: Delivery };

interface DeliveryRecord {
  id: string;
  eventId: string;
  endpointId: string;
  status: Delivery['status'];
  attempts: Array<Delivery['attempts'][number]>;
  nextAttemptAt: number | null;
}

export const JOURNAL_FILE = 'webhooks.jsonl';

export class FileStore implements WebhookStore {
  private readonly path: string;
  private readonly keep: number;
  private readonly fsync: boolean;
  private readonly endpointsById = new Map<string, WebhookEndpoint>();
  private readonly events = new Map<string, { event: WebhookEvent; references: number }>();
  private readonly deliveriesById = new Map<string, DeliveryRecord>();
  /** Pending deliveries, in the order they were enqueued. */
  private readonly pending = new Map<string, DeliveryRecord>();
  /** Claimed deliveries, and until when. */
  private readonly leases = new Map<string, number>();
  /** Each endpoint's finished deliveries, oldest first. */
  private readonly finished = new Map<string, string[]>();
  private handle: FileHandle | null = null;
  private lines = 0;
  private queue: string[] = [];
  private waiting: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing: Promise<void> | null = null;
  private closed = false;

  constructor(options: FileStoreOptions) {
    if (typeof options?.dir !== 'string' || options.dir === '') throw new TypeError('The webhook file store needs a directory (dir).');
    this.path = join(options.dir, JOURNAL_FILE);
    this.keep = positiveInteger(options.keepDeliveries ?? 100, 'keepDeliveries');
    this.fsync = options.fsync ?? true;
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  }

  async open(): Promise<void> {
    if (this.handle !== null) return;
    let text = '';
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    // Whole lines are replayed. The last line, if the file does not end with a newline, was
    // being written when the process died: replayed if it is whole (and its newline written
    // now, so that the next line does not join it), else cut off.
    let kept = 0;
    let needsNewline = false;
    let offset = 0;
    while (offset < text.length) {
      const end = text.indexOf('\n', offset);
      const line = text.slice(offset, end === -1 ? text.length : end);
      let parsed: JournalLine | undefined;
      try {
        parsed = line.trim() === '' ? undefined : (JSON.parse(line) as JournalLine);
      } catch {
        break;
      }
      if (parsed !== undefined) {
        this.apply(parsed);
        this.lines++;
      }
      if (end === -1) {
        kept = text.length;
        needsNewline = line !== '';
        break;
      }
      offset = end + 1;
      kept = offset;
    }
    const size = Buffer.byteLength(text);
    const keptBytes = Buffer.byteLength(text.slice(0, kept));
    if (keptBytes < size) truncateSync(this.path, keptBytes);
    if (needsNewline) appendFileSync(this.path, '\n');
    for (const [id, { references }] of this.events) if (references === 0) this.events.delete(id);
    this.handle = await openFile(this.path, 'a', 0o600);
  }

  async saveEndpoint(endpoint: WebhookEndpoint): Promise<void> {
    await this.commit([{ t: 'endpoint', endpoint }]);
  }

  async removeEndpoint(id: string): Promise<boolean> {
    if (!this.endpointsById.has(id)) return false;
    await this.commit([{ t: 'remove', id }]);
    return true;
  }

  endpoints(): Promise<WebhookEndpoint[]> {
    return Promise.resolve([...this.endpointsById.values()]);
  }

  async enqueue(event: WebhookEvent, deliveries: ReadonlyArray<{ id: string; endpointId: string }>): Promise<void> {
    // No endpoint wants it: nothing to deliver, nothing to keep.
    if (deliveries.length === 0) return;
    await this.commit([{ t: 'event', event, deliveries: deliveries.map(({ id, endpointId }) => [id, endpointId]), at: Date.now() }]);
  }

  claimDue(now: number, limit: number, busy: ReadonlySet<string>, leaseMs: number): Promise<ClaimedDelivery[]> {
    const claimed: ClaimedDelivery[] = [];
    // One delivery per endpoint per pass: the engine asks again as attempts end, so no endpoint
    // takes every free place in one pass.
    const passed = new Set<string>();
    for (const record of this.pending.values()) {
      if (claimed.length >= limit) break;
      if (busy.has(record.endpointId) || passed.has(record.endpointId)) continue;
      const lease = this.leases.get(record.id);
      if ((lease !== undefined && lease > now) || (record.nextAttemptAt ?? 0) > now) continue;
      const endpoint = this.endpointsById.get(record.endpointId);
      const event = this.events.get(record.eventId)?.event;
      if (endpoint === undefined || event === undefined) continue;
      if (endpoint.disabled !== null) continue;
      this.leases.set(record.id, now + leaseMs);
      claimed.push({ delivery: snapshot(record), event, endpoint });
      passed.add(record.endpointId);
    }
    return Promise.resolve(claimed);
  }

  async recordAttempt(deliveryId: string, outcome: AttemptOutcome): Promise<void> {
    const lines: JournalLine[] = [{ t: 'attempt', id: deliveryId, attempt: outcome.attempt, status: outcome.status, next: outcome.nextAttemptAt }];
    // The effect on the endpoint as it is now (a removed one stays removed).
    const endpointId = this.deliveriesById.get(deliveryId)?.endpointId;
    const current = endpointId === undefined ? undefined : this.endpointsById.get(endpointId);
    const changed = current === undefined ? null : applyEffect(current, outcome.effect);
    if (changed !== null) lines.push({ t: 'endpoint', endpoint: changed });
    try {
      await this.commit(lines);
    } finally {
      this.leases.delete(deliveryId);
    }
  }

  deliveries(endpointId: string, limit: number): Promise<Delivery[]> {
    const found: Delivery[] = [];
    for (const record of this.deliveriesById.values()) if (record.endpointId === endpointId) found.push(snapshot(record));
    found.reverse();
    return Promise.resolve(found.slice(0, limit));
  }

  event(id: string): Promise<WebhookEvent | null> {
    return Promise.resolve(this.events.get(id)?.event ?? null);
  }

  nextDue(): Promise<number | null> {
    let earliest: number | null = null;
    for (const record of this.pending.values()) {
      if (this.endpointsById.get(record.endpointId)?.disabled != null) continue;
      const due = Math.max(record.nextAttemptAt ?? 0, this.leases.get(record.id) ?? 0);
      if (earliest === null || due < earliest) earliest = due;
    }
    return Promise.resolve(earliest);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.flushing;
    await this.handle?.close();
    this.handle = null;
  }

  /** Appends the lines (durably), then applies them to the state. */
  private commit(changes: JournalLine[]): Promise<void> {
    if (this.closed || this.handle === null) return Promise.reject(new Error('The webhook store is not open.'));
    for (const change of changes) this.queue.push(JSON.stringify(change) + '\n');
    // Applied now, so that what follows sees it; acknowledged once on disk.
    for (const change of changes) this.apply(change);
    this.lines += changes.length;
    const written = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    this.flushing ??= this.flush();
    return written;
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const text = this.queue.join('');
        const waiting = this.waiting;
        this.queue = [];
        this.waiting = [];
        try {
          await (this.handle as FileHandle).appendFile(text);
          if (this.fsync) await (this.handle as FileHandle).datasync();
          for (const waiter of waiting) waiter.resolve();
        } catch (error) {
          for (const waiter of waiting) waiter.reject(error);
        }
      }
      if (this.lines > Math.max(10_000, 4 * this.liveLines())) await this.compact().catch(() => undefined);
    } finally {
      this.flushing = null;
      if (this.queue.length > 0) this.flushing = this.flush();
    }
  }

  private liveLines(): number {
    return this.endpointsById.size + this.events.size + this.deliveriesById.size;
  }

  /**
   * Rewrites the journal as the state it describes. A rewrite that fails (a full disk) leaves
   * the journal as it was, still appended to: it is only longer than it needs to be.
   */
  private async compact(): Promise<void> {
    const lines: string[] = [];
    for (const endpoint of this.endpointsById.values()) lines.push(JSON.stringify({ t: 'endpoint', endpoint }));
    for (const { event } of this.events.values()) lines.push(JSON.stringify({ t: 'event', event, deliveries: [], at: 0 }));
    for (const record of this.deliveriesById.values()) lines.push(JSON.stringify({ t: 'delivery', delivery: snapshot(record) }));
    const temporary = `${this.path}.compacting`;
    try {
      const fd = openSync(temporary, 'w', 0o600);
      try {
        writeSync(fd, lines.length === 0 ? '' : lines.join('\n') + '\n');
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      rmSync(temporary, { force: true });
      return;
    }
    await (this.handle as FileHandle).close();
    try {
      renameSync(temporary, this.path);
      this.lines = lines.length;
      const directory = openSync(join(this.path, '..'), 'r');
      try {
        fsyncSync(directory);
      } finally {
        closeSync(directory);
      }
    } catch {
      rmSync(temporary, { force: true });
    } finally {
      this.handle = await openFile(this.path, 'a', 0o600);
    }
  }

  private apply(line: JournalLine): void {
    switch (line.t) {
      case 'endpoint':
        this.endpointsById.set(line.endpoint.id, line.endpoint);
        break;
      case 'remove': {
        this.endpointsById.delete(line.id);
        for (const record of [...this.deliveriesById.values()]) if (record.endpointId === line.id) this.forget(record);
        this.finished.delete(line.id);
        break;
      }
      case 'event': {
        if (!this.events.has(line.event.id)) this.events.set(line.event.id, { event: line.event, references: 0 });
        for (const [id, endpointId] of line.deliveries) {
          this.add({ id, eventId: line.event.id, endpointId, status: 'pending', attempts: [], nextAttemptAt: line.at });
        }
        break;
      }
      case 'delivery':
        this.add({ ...line.delivery, attempts: [...line.delivery.attempts] });
        break;
      case 'attempt': {
        const record = this.deliveriesById.get(line.id);
        if (record === undefined) break;
        record.attempts.push(line.attempt);
        record.status = line.status;
        record.nextAttemptAt = line.next;
        if (line.status !== 'pending') this.finish(record);
        break;
      }
    }
  }

  private add(record: DeliveryRecord): void {
    const event = this.events.get(record.eventId);
    if (event === undefined) return;
    event.references++;
    this.deliveriesById.set(record.id, record);
    if (record.status === 'pending') this.pending.set(record.id, record);
    else this.finish(record);
  }

  /** A delivery is over: kept among its endpoint's recent ones, the oldest beyond `keep` forgotten. */
  private finish(record: DeliveryRecord): void {
    this.pending.delete(record.id);
    let list = this.finished.get(record.endpointId);
    if (list === undefined) {
      list = [];
      this.finished.set(record.endpointId, list);
    }
    list.push(record.id);
    while (list.length > this.keep) {
      const oldest = this.deliveriesById.get(list.shift() as string);
      if (oldest !== undefined) this.forget(oldest);
    }
  }

  private forget(record: DeliveryRecord): void {
    this.deliveriesById.delete(record.id);
    this.pending.delete(record.id);
    this.leases.delete(record.id);
    const event = this.events.get(record.eventId);
    if (event !== undefined && --event.references <= 0) this.events.delete(record.eventId);
  }
}

function snapshot(record: DeliveryRecord): Delivery {
  return {
    id: record.id,
    eventId: record.eventId,
    endpointId: record.endpointId,
    status: record.status,
    attempts: [...record.attempts],
    nextAttemptAt: record.nextAttemptAt,
  };
}
