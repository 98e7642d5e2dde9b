/**
 * About how many characters a JSON value takes written out: its strings' lengths, its numbers
 * at most 24 characters, its punctuation and keys. It walks with a stack of its own, never
 * recursion, so a value nested too deep for JSON.stringify is measured all the same. For budgets
 * of what a request makes the server keep (a subscription's variables): an estimate, not the
 * exact length (escapes are not counted).
 */
export function jsonSize(value: unknown): number {
  let size = 0;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current === 'string') {
      size += current.length + 2;
    } else if (typeof current === 'number' || typeof current === 'bigint') {
      size += 24;
    } else if (Array.isArray(current)) {
      size += 2 + current.length;
      for (const item of current) pending.push(item);
    } else if (current !== null && typeof current === 'object') {
      size += 2;
      for (const [key, item] of Object.entries(current)) {
        size += key.length + 4;
        pending.push(item);
      }
    } else {
      // true, false, null (undefined members are left out when written, counted as null here).
      size += 5;
    }
  }
  return size;
}
