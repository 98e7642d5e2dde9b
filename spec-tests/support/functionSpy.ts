/**
 * A spy on the Function constructor, for the tests of the engine's generated code
 * (compileFields.ts, compileStringify.ts): what text reached it while something ran.
 */

/** Runs `run` with the spy in place; returns what it returned and every text handed to `new Function` meanwhile. */
export async function withFunctionSpy<T>(run: () => T | Promise<T>): Promise<{ value: T; generated: string[] }> {
  const generated: string[] = [];
  const original = globalThis.Function;
  globalThis.Function = new Proxy(original, {
    construct(target, args: string[]) {
      generated.push(args.join('\n'));
      return Reflect.construct(target, args);
    },
  });
  try {
    return { value: await run(), generated };
  } finally {
    globalThis.Function = original;
  }
}
