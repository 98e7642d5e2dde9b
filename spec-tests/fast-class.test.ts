/**
 * fastClass (src/jsutils/fastClass.ts): every class of ours that `src` tests with `instanceof`
 * is given to fastClass in its module, and every class given to it has fast properties in V8
 * under tsx (whose keepNames leaves any other class in dictionary mode), and is otherwise
 * unchanged. V8's own answer is read in a child process with natives syntax.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fastClass } from '../src/jsutils/fastClass.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');

/** Every TypeScript file under src, with its text. */
function sources(dir = SRC): Array<{ path: string; text: string }> {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [{ path, text: readFileSync(path, 'utf8') }] : [];
  });
}

const FILES = sources();
const TEXT = new Map(FILES.map(({ path, text }) => [path, text]));
/** The classes declared in src, by name, with the files that declare them. */
const DECLARED = new Map<string, string[]>();
for (const { path, text } of FILES) {
  for (const [, name] of text.matchAll(/^(?:export )?(?:abstract )?class (\w+)/gm)) DECLARED.set(name as string, [...(DECLARED.get(name as string) ?? []), path]);
}

describe('fastClass', () => {
  it('is given every class of ours that src tests with instanceof, in the module that declares it', () => {
    const tested = new Set(FILES.flatMap(({ text }) => [...text.matchAll(/instanceof (\w+)/g)].map((match) => match[1] as string)));
    const ours = [...tested].filter((name) => DECLARED.has(name)).sort();
    // The scan finds the classes it should (a regression in it would pass vacuously otherwise).
    expect(ours).toEqual(expect.arrayContaining(['ArgumentsError', 'AuthError', 'BatchLoader', 'EventStream', 'FailedRead', 'OperationPlan']));
    const missing = ours.filter((name) => !(DECLARED.get(name) as string[]).some((path) => (TEXT.get(path) as string).includes(`\nfastClass(${name});\n`)));
    expect(missing).toEqual([]);
  });

  it('gives fast properties back to every class given to it, where tsx leaves a class in dictionary mode', () => {
    const given = FILES.flatMap(({ path, text }) =>
      [...text.matchAll(/^fastClass\((\w+)\);$/gm)]
        .map((match) => match[1] as string)
        .filter((name) => new RegExp(`^export (?:abstract )?class ${name}\\b`, 'm').test(text))
        .map((name) => ({ name, module: relative(ROOT, path) })),
    );
    expect(given.map(({ name }) => name)).toEqual(expect.arrayContaining(['NodeRequest', 'HttpOperation', 'Execution', 'AuthError', 'OperationPlan']));
    const imports = given.map(({ name, module }, index) => `import { ${name} as C${index} } from ${JSON.stringify(join(ROOT, module))};`).join('\n');
    const script = `
      import { PlainClass } from ${JSON.stringify(join(ROOT, 'spec-tests/support/plainClass.ts'))};
      ${imports}
      const fast = new Function('value', 'return %HasFastProperties(value)');
      const classes = { PlainClass, ${given.map(({ name }, index) => `${name}: C${index}`).join(', ')} };
      process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(classes).map(([name, value]) => [name, fast(value)]))));
    `;
    const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: ROOT });
    expect(run.stderr).toBe('');
    // The control: a class tsx compiled is slow. Should this fail after a tsx upgrade (no more
    // keepNames), fastClass has no more work to do and can go.
    expect(JSON.parse(run.stdout)).toEqual({ PlainClass: false, ...Object.fromEntries(given.map(({ name }) => [name, true])) });
  });

  it('leaves the class as it was: its name, its prototype chain, its instances', () => {
    class Made {
      constructor(readonly value: number) {}
    }
    class MadeError extends Error {}
    fastClass(Made);
    fastClass(MadeError);
    expect(Made.name).toBe('Made');
    expect(Object.getPrototypeOf(Made)).toBe(Function.prototype);
    expect(Object.getPrototypeOf(MadeError)).toBe(Error);
    const made = new Made(3);
    expect(made).toBeInstanceOf(Made);
    expect(Object.getPrototypeOf(made)).toBe(Made.prototype);
    expect(made.value).toBe(3);
    expect(new MadeError('m')).toBeInstanceOf(Error);
    expect({}).not.toBeInstanceOf(Made);
  });
});
