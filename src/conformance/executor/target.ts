/**
 * The executor under test: a module exporting graphql-js's `execute` signature (and, optionally,
 * `subscribe` and `experimentalExecuteIncrementally`). The module must run schemas made with the
 * graphql this package resolves; one made with a second copy of graphql is refused up front,
 * with the reason, rather than reported as every case failing.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSchema, parse } from 'graphql';
import type { ExecutionArgs, ExecutionResult } from 'graphql';

export type ExecuteFunction = (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult>;

export interface ExecutorTarget {
  execute: ExecuteFunction;
  subscribe?: (args: ExecutionArgs) => unknown;
  experimentalExecuteIncrementally?: (args: ExecutionArgs) => unknown;
}

/** The module's executor functions: named exports, else the default export's members. */
export async function loadExecutorModule(path: string): Promise<ExecutorTarget> {
  const module = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  const fromDefault = typeof module['default'] === 'object' && module['default'] !== null ? (module['default'] as Record<string, unknown>) : {};
  const exported = (name: string) => module[name] ?? fromDefault[name];
  const execute = exported('execute');
  if (typeof execute !== 'function') throw new Error(`${path} exports no execute function (graphql-js's signature: execute({ schema, document, ... })).`);
  const target: ExecutorTarget = { execute: execute as ExecuteFunction };
  for (const name of ['subscribe', 'experimentalExecuteIncrementally'] as const) {
    const value = exported(name);
    if (typeof value === 'function') target[name] = value as (args: ExecutionArgs) => unknown;
  }
  await assertSameGraphql(path, target.execute);
  return target;
}

/** Throws when the module's execute cannot run a schema of this package's graphql (a second copy of graphql). */
async function assertSameGraphql(path: string, execute: ExecuteFunction): Promise<void> {
  let result: ExecutionResult;
  try {
    result = await execute({ schema: buildSchema('type Query { ok: Boolean }'), document: parse('{ ok }'), rootValue: { ok: true } });
  } catch (error) {
    throw new Error(`${path}'s execute threw on { ok } over type Query { ok: Boolean } (${(error as Error).message}); is it built on another copy of graphql than the one graphql-glassbox resolves?`);
  }
  if (JSON.stringify(result) !== '{"data":{"ok":true}}') {
    throw new Error(`${path}'s execute answered ${JSON.stringify(result)} to { ok } over type Query { ok: Boolean }, not {"data":{"ok":true}}; is it built on another copy of graphql than the one graphql-glassbox resolves?`);
  }
}
