/**
 * How the Trace panel says things, shared by the waterfall (trace.jsx) and the plan (planTree.jsx):
 * durations, counts of batches and keys, and the label of a response path.
 *
 * Why a module of its own: "1 batch · 2 keys" must read the same on a waterfall row and in the
 * plan, and a label must keep the end of a path (the field) whatever cuts it.
 */

import type { BatchTrace } from '../execution/trace.ts';

/** `850 ns`, `5.2 µs`, `1.25 ms`. */
export function duration(ns: number): string {
  if (ns < 1_000) return `${Math.round(ns)} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(1)} µs`;
  return `${(ns / 1_000_000).toFixed(2)} ms`;
}

/** `1 batch · 2 keys`: said so that a count of keys never reads as a count of batches. */
export function batchesText(batches: number, keys: number): string {
  return `${batches} ${batches === 1 ? 'batch' : 'batches'} · ${keys} ${keys === 1 ? 'key' : 'keys'}`;
}

/** How many keys a traced batch had: those listed and those left out past the trace's limit. */
export function keyCount(batch: Pick<BatchTrace, 'keys' | 'keysTruncated'>): number {
  const listed = Array.isArray(batch.keys) ? batch.keys.length : 0;
  return listed + (Number(batch.keysTruncated) || 0);
}

/** A resolver call's field: its path without list indices (`books.items.0.author` → `books.items.author`). */
export function fieldPathOf(path: string): string {
  return String(path)
    .split('.')
    .filter((segment) => !/^\d+$/.test(segment))
    .join('.');
}

/**
 * A path for a label `chars` wide: the field (the last segment) always whole, after as much of
 * its parent's path as fits, cut from the left at a dot (`…items.0.` before `author`).
 */
export function pathLabel(path: string, chars: number): { parent: string; name: string } {
  const segments = String(path).split('.');
  const name = segments.pop() ?? '';
  let parent = segments.length === 0 ? '' : `${segments.join('.')}.`;
  if (parent.length + name.length <= chars) return { parent, name };
  while (segments.length > 0 && `…${segments.join('.')}.`.length + name.length > chars) segments.shift();
  return { parent: `…${segments.join('.')}${segments.length === 0 ? '' : '.'}`, name };
}
