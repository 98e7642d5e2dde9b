/**
 * A class made fast for V8 again where a TypeScript runner left it slow.
 *
 * tsx compiles with esbuild's `keepNames`, which gives every class a static block that redefines
 * its `name` property. That leaves the class object in V8's dictionary mode, and then TurboFan
 * specializes no `x instanceof C`: each is a call of the generic builtin, which looks
 * `Symbol.hasInstance` up the class's chain. V8 turns an object back to fast properties when
 * another object takes it as its prototype, which is what `extends` does: so the class is
 * extended once, for that effect alone. Run from JavaScript compiled without `keepNames`,
 * nothing changes.
 *
 * The rule: every class of ours that code tests with `instanceof` (spec-tests/fast-class.test.ts
 * finds them all), and the classes made on every request (docs/benchmarks.md on `{ hello }`).
 */
export function fastClass(constructor: abstract new (...args: never[]) => unknown): void {
  class Extended extends (constructor as unknown as new () => object) {}
  void Extended;
}
