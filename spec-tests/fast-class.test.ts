/**
 * fastClass (src/jsutils/fastClass.ts): the classes made or tested on every request have fast
 * properties in V8 again under tsx, whose keepNames leaves every class in dictionary mode, and
 * are otherwise unchanged. V8's own answer is read in a child process with natives syntax.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fastClass } from '../src/jsutils/fastClass.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const source = (path: string) => JSON.stringify(fileURLToPath(new URL(path, import.meta.url)));

describe('fastClass', () => {
  it('gives fast properties back to the classes of every request, where tsx leaves a class in dictionary mode', () => {
    const script = `
      import { PlainClass } from ${source('./support/plainClass.ts')};
      import { NodeRequest } from ${source('../src/transports/http/nodeRequest.ts')};
      import { HttpOperation } from ${source('../src/transports/httpOperation.ts')};
      import { Execution } from ${source('../src/execution/execution.ts')};
      import { AuthError } from ${source('../src/security/authError.ts')};
      import { OperationPlan } from ${source('../src/execution/plan.ts')};
      import { BatchLoader } from ${source('../src/batching/batchLoader.ts')};
      import { EventStream } from ${source('../src/transports/http/eventStream.ts')};
      import { MultipartStream } from ${source('../src/transports/http/multipartStream.ts')};
      const fast = new Function('value', 'return %HasFastProperties(value)');
      const classes = { PlainClass, NodeRequest, HttpOperation, Execution, AuthError, OperationPlan, BatchLoader, EventStream, MultipartStream };
      process.stdout.write(JSON.stringify(Object.fromEntries(Object.entries(classes).map(([name, value]) => [name, fast(value)]))));
    `;
    const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', cwd: ROOT });
    expect(run.stderr).toBe('');
    // The control: a class tsx compiled is slow. Should this fail after a tsx upgrade (no more
    // keepNames), fastClass has no more work to do and can go.
    expect(JSON.parse(run.stdout)).toEqual({
      PlainClass: false,
      NodeRequest: true,
      HttpOperation: true,
      Execution: true,
      AuthError: true,
      OperationPlan: true,
      BatchLoader: true,
      EventStream: true,
      MultipartStream: true,
    });
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
