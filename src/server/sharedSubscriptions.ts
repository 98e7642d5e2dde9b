/**
 * Shared subscriptions: one execution per event for every subscriber who would get the same
 * result.
 *
 * Subscribers of one operation planned for the same grants (the same plan), with the same
 * variables and the same identity, get the same result for each event: the event is the root
 * value, and everything else their resolvers see is alike (a context made for the same
 * identity). So they form a group: one source stream, made from the request of the subscriber
 * that started the group (its context, its connection's parameters), one execution per event,
 * and one result object handed to every member (transports must not change it; they serialize
 * it once for all, see transports/sharedResultText.ts). At 10,000 subscribers of one event that is
 * the difference between executing the operation once and 10,000 times.
 *
 * Each member has its own bounded buffer of results, as a pub/sub subscriber has: one that falls
 * more than bufferSize results behind leaves the group, reads what it holds, then gets the
 * SUBSCRIPTION_OVERFLOW error; the others go on. The group ends when its source ends (every
 * member completes, or gets the source's error, after what it holds) or when its last member
 * leaves (the source is closed then, and the group's signal aborted).
 *
 * Turn it off (pipeline option shareSubscriptions: false) when resolvers read, from the context,
 * something of each connection beyond the identity: a locale sent with connection_init, say.
 */
import type { ExecutionResult } from 'graphql';
import type { OperationResult, OperationStream } from './outcomes.ts';
import { overflowError } from '../events/pubsub.ts';

/** A subscription as the pipeline starts it: its stream of results, or the errors that kept it from starting. */
export type Started = OperationStream | OperationResult;

export class SubscriptionGroups {
  /** By plan, then identity (objects: the same plan and identity objects are reused), then variables' text. */
  private readonly groups = new WeakMap<object, WeakMap<object, Map<string, Group>>>();
  private readonly bufferSize: number;

  constructor(bufferSize: number) {
    this.bufferSize = bufferSize;
  }

  /**
   * Joins the group of (plan, identity, variables), starting it with `start` if there is none:
   * the member's own stream over the group's results, or the errors the start gave.
   */
  join(plan: object, identity: object, variables: string, start: () => Promise<Started>): Promise<Started> {
    let byIdentity = this.groups.get(plan);
    if (byIdentity === undefined) this.groups.set(plan, (byIdentity = new WeakMap()));
    let byVariables = byIdentity.get(identity);
    if (byVariables === undefined) byIdentity.set(identity, (byVariables = new Map()));
    let group = byVariables.get(variables);
    if (group === undefined) {
      const groups = byVariables;
      const created: Group = new Group(this.bufferSize, () => {
        if (groups.get(variables) === created) groups.delete(variables);
      });
      group = created;
      groups.set(variables, group);
      group.start(start);
    }
    return group.join();
  }
}

class Group {
  private readonly bufferSize: number;
  private readonly forget: () => void;
  private readonly members = new Set<Member>();
  private started!: Promise<Started>;
  private source: AsyncGenerator<ExecutionResult, void, void> | null = null;
  private ended = false;

  constructor(bufferSize: number, forget: () => void) {
    this.bufferSize = bufferSize;
    this.forget = forget;
  }

  start(start: () => Promise<Started>): void {
    this.started = start().then(
      (started) => {
        if (started.kind === 'stream') {
          this.source = started.stream;
          // Members that joined before now are all registered: none misses the first result.
          if (this.members.size === 0) this.end();
          else void this.pump(started.stream);
        } else {
          // Nothing started: every member waiting gets the errors, and the next subscriber tries again.
          this.ended = true;
          this.forget();
        }
        return started;
      },
      (error: unknown) => {
        this.ended = true;
        this.forget();
        throw error;
      },
    );
  }

  join(): Promise<Started> {
    // Registered now, before the source can give anything, so that no result is missed.
    const member = new Member(this, this.bufferSize);
    this.members.add(member);
    return this.started.then((started) => {
      if (started.kind !== 'stream') {
        this.members.delete(member);
        return started;
      }
      return { kind: 'stream', stream: member.stream() };
    });
  }

  leave(member: Member): void {
    this.members.delete(member);
    if (this.members.size === 0 && this.source !== null) this.end();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.forget();
    void this.source?.return().catch(() => undefined);
  }

  private async pump(source: AsyncGenerator<ExecutionResult, void, void>): Promise<void> {
    for (;;) {
      let step: IteratorResult<ExecutionResult, void>;
      try {
        step = await source.next();
      } catch (error) {
        this.finishMembers({ error });
        return;
      }
      if (this.ended) return;
      if (step.done === true) {
        this.finishMembers({ error: undefined });
        return;
      }
      for (const member of this.members) member.push(step.value);
    }
  }

  private finishMembers(end: { error: unknown }): void {
    this.ended = true;
    this.forget();
    for (const member of this.members) member.finish(end);
    this.members.clear();
  }
}

/** One subscriber of a group: its bounded buffer of results, and how its stream ends. */
class Member {
  private readonly group: Group;
  private readonly bufferSize: number;
  private readonly buffered: ExecutionResult[] = [];
  private waiting: ((step: IteratorResult<ExecutionResult, void>) => void) | null = null;
  private failWaiting: ((error: unknown) => void) | null = null;
  /** Set when nothing more will be buffered: the error to give after what is held (undefined: just done). */
  private end: { error: unknown } | null = null;
  private returned = false;

  constructor(group: Group, bufferSize: number) {
    this.group = group;
    this.bufferSize = bufferSize;
  }

  push(result: ExecutionResult): void {
    if (this.waiting !== null) {
      const resolve = this.waiting;
      this.waiting = this.failWaiting = null;
      resolve({ value: result, done: false });
      return;
    }
    if (this.buffered.length >= this.bufferSize) {
      this.group.leave(this);
      this.finish({ error: overflowError(this.bufferSize) });
      return;
    }
    this.buffered.push(result);
  }

  finish(end: { error: unknown }): void {
    if (this.end !== null) return;
    this.end = end;
    if (this.waiting !== null && this.buffered.length === 0) this.settleWaiting();
  }

  stream(): AsyncGenerator<ExecutionResult, void, void> {
    const member = this;
    const stream = {
      next(): Promise<IteratorResult<ExecutionResult, void>> {
        if (member.returned) return Promise.resolve({ value: undefined, done: true });
        const result = member.buffered.shift();
        if (result !== undefined) return Promise.resolve({ value: result, done: false });
        if (member.end !== null) return member.ending();
        return new Promise((resolve, reject) => {
          member.waiting = resolve;
          member.failWaiting = reject;
        });
      },
      return(): Promise<IteratorResult<ExecutionResult, void>> {
        if (!member.returned) {
          member.returned = true;
          member.buffered.length = 0;
          member.group.leave(member);
          member.waiting?.({ value: undefined, done: true });
          member.waiting = member.failWaiting = null;
        }
        return Promise.resolve({ value: undefined, done: true });
      },
      throw(error: unknown): Promise<IteratorResult<ExecutionResult, void>> {
        void stream.return();
        return Promise.reject(error);
      },
      [Symbol.asyncIterator]() {
        return stream;
      },
    };
    return stream as unknown as AsyncGenerator<ExecutionResult, void, void>;
  }

  /** What next() gives once the buffer is empty and the stream has ended: its error once, then done. */
  private ending(): Promise<IteratorResult<ExecutionResult, void>> {
    const error = (this.end as { error: unknown }).error;
    this.returned = true;
    return error === undefined ? Promise.resolve({ value: undefined, done: true }) : Promise.reject(error);
  }

  private settleWaiting(): void {
    const resolve = this.waiting;
    const reject = this.failWaiting;
    this.waiting = this.failWaiting = null;
    const error = (this.end as { error: unknown }).error;
    this.returned = true;
    if (error === undefined) resolve?.({ value: undefined, done: true });
    else reject?.(error);
  }
}
