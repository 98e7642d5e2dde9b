/**
 * PreparationQueue (src/server/preparationQueue.ts): new documents are prepared at once while a
 * turn of the event loop has time left, else in turns, one client at a time, in slices of at
 * most SLICE_MS of work with the event loop free between slices.
 */
import { describe, expect, it } from 'vitest';
import { PreparationQueue, SLICE_MS } from '../src/server/preparationQueue.ts';

/** Holds the thread for `ms` milliseconds, as a costly validation would. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('PreparationQueue', () => {
  it('runs a job at once, answering its value, while the turn has time left and nothing waits', async () => {
    const queue = new PreparationQueue();
    let asked = 0;
    expect(queue.runOrQueue(() => `client${++asked}`, () => 'done')).toBe('done');
    expect(queue.runOrQueue(() => `client${++asked}`, () => 'again')).toBe('again');
    // The client is asked for only when a job must wait.
    expect(asked).toBe(0);
  });

  it('queues the jobs that arrive once SLICE_MS is spent in the turn, and runs them at once again in a later turn', async () => {
    const queue = new PreparationQueue();
    expect(queue.runOrQueue(() => 'a', () => busy(SLICE_MS + 1))).toBeUndefined();
    const later = queue.runOrQueue(() => 'b', () => 'late');
    expect(later).toBeInstanceOf(Promise);
    expect(queue.waiting).toBe(1);
    expect(await later).toBe('late');
    await nextTurn();
    expect(queue.runOrQueue(() => 'a', () => 'now')).toBe('now');
  });

  it('serves the waiting clients round-robin, one job each in turn, each client’s jobs in order', async () => {
    const queue = new PreparationQueue();
    const order: string[] = [];
    const job = (name: string) => () => order.push(name);
    const all = [
      queue.queue('a', job('a1')),
      queue.queue('a', job('a2')),
      queue.queue('a', job('a3')),
      queue.queue('b', job('b1')),
      queue.queue('c', job('c1')),
      queue.queue('c', job('c2')),
    ];
    await Promise.all(all);
    expect(order).toEqual(['a1', 'b1', 'c1', 'a2', 'c2', 'a3']);
    expect(queue.waiting).toBe(0);
  });

  it('frees the event loop between slices: work queued in a turn runs at most SLICE_MS before others run', async () => {
    const queue = new PreparationQueue();
    const order: string[] = [];
    const jobs = Array.from({ length: 6 }, (_, i) => queue.queue(`client${i}`, () => {
      busy(SLICE_MS / 2 + 1);
      order.push(`job${i}`);
    }));
    setImmediate(() => order.push('other'));
    await Promise.all(jobs);
    const before = order.indexOf('other');
    // A slice runs jobs until SLICE_MS is spent: two of these, or one if the thread was preempted.
    expect(before === 1 || before === 2).toBe(true);
    expect(order.filter((name) => name !== 'other')).toEqual(['job0', 'job1', 'job2', 'job3', 'job4', 'job5']);
  });

  it('serves no lane in a turn whose budget went on a text prepared at once: what waits runs in the next turn', async () => {
    const queue = new PreparationQueue();
    const order: string[] = [];
    queue.runOrQueue(() => 'a', () => {
      busy(SLICE_MS + 1);
      order.push('at once');
    });
    const queued = queue.runOrQueue(() => 'b', () => order.push('queued'));
    // Scheduled in this turn after the queue's slice: the slice, with no budget left, runs nothing before it.
    setImmediate(() => order.push('this turn'));
    await queued;
    expect(order).toEqual(['at once', 'this turn', 'queued']);
  });

  it('rejects with what a job throws, and goes on with the others', async () => {
    const queue = new PreparationQueue();
    const failing = queue.queue('a', () => {
      throw new Error('broken document');
    });
    const fine = queue.queue('b', () => 'fine');
    await expect(failing).rejects.toThrow('broken document');
    expect(await fine).toBe('fine');
    expect(() => queue.runOrQueue(() => 'a', () => {
      throw new Error('at once');
    })).toThrow('at once');
  });
});
