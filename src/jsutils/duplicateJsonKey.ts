/**
 * The first key named twice in one object of a JSON text, or null.
 *
 * JSON.parse keeps the last of two equal keys and says nothing, so `{"authorization": "a",
 * "authorization": "b"}` reads as one credential although the sender wrote two, and which one
 * wins is a detail of the parser that a proxy in front of us may read differently. Where that
 * matters (credentials), the text is scanned for repeated keys after JSON.parse has accepted it.
 *
 * The text must be JSON that JSON.parse accepted: the scanner follows strings (escapes
 * included, so a key is compared as JSON.parse would decode it) and object/array nesting, and
 * skips every other token. One pass, one Set per open object.
 */
export function duplicateJsonKey(text: string): string | null {
  // One entry per open object or array: the keys an object has seen, null for an array.
  const open: Array<Set<string> | null> = [];
  let expectingKey = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === 0x22 /* " */) {
      const end = stringEnd(text, i);
      const keys = open[open.length - 1];
      if (expectingKey && keys != null) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
      }
      expectingKey = false;
      i = end;
    } else if (char === 0x7b /* { */) {
      open.push(new Set());
      expectingKey = true;
    } else if (char === 0x5b /* [ */) {
      open.push(null);
    } else if (char === 0x7d /* } */ || char === 0x5d /* ] */) {
      open.pop();
    } else if (char === 0x2c /* , */) {
      expectingKey = open[open.length - 1] != null;
    }
  }
  return null;
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const char = text.charCodeAt(i);
    if (char === 0x5c /* \ */) i += 2;
    else if (char === 0x22) return i;
    else i++;
  }
  return i;
}
