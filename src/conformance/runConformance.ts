/**
 * `runConformance(options)`: the kit as a function, what `graphql-glassbox conformance` runs. The
 * options name the target kind and the target; the checks of that kind run against it (selected by
 * `only`/`skip`, each bounded in time) and the report comes back, for report.ts to print.
 *
 * Each kind's checks are imported when that kind runs: the package's index exports this function,
 * and a server that never runs the kit loads none of it.
 */
import type { CheckSelection, ConformanceReport } from './check.ts';
import type { DifferentialOptions, ExecutorTarget } from './executor/index.ts';
import type { HttpTargetOptions } from './http/index.ts';
import { runChecks } from './runChecks.ts';
import type { WsTargetOptions } from './ws/index.ts';

export interface ExecutorConformanceOptions {
  kind: 'executor';
  /** A module exporting `execute` (path, relative to the working directory), or its functions themselves. */
  module: string | ExecutorTarget;
  /** Run the cases of fixtures/cases; default true. */
  cases?: boolean;
  /** The differential run against the installed graphql-js: operations per fixture and seed, or false for none. Default 100 and 1. */
  generated?: Partial<DifferentialOptions> | false;
}

export interface CommonConformanceOptions {
  only?: readonly string[];
  skip?: readonly string[];
  /**
   * Executor: how long one check may run (default 30,000 ms). HTTP and WebSocket: how long one
   * request or one wait may take (the target's `timeoutMs`); a check, which waits several times,
   * may then run six times as long.
   */
  timeoutMs?: number;
}

export type ConformanceOptions = CommonConformanceOptions &
  (ExecutorConformanceOptions | ({ kind: 'http' } & HttpTargetOptions) | ({ kind: 'ws' } & WsTargetOptions));

/** Runs the kit against one target and reports every selected check. */
export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const selection: CheckSelection = { ...(options.only ? { only: options.only } : {}), ...(options.skip ? { skip: options.skip } : {}) };
  switch (options.kind) {
    case 'executor':
      return runExecutor(options, selection);
    case 'http': {
      const { kind, only, skip, ...target } = options;
      return runChecks({ kind, subject: target.url, checks: await (await import('./http/index.ts')).httpChecks(), target, selection, ...checkBound(options.timeoutMs) });
    }
    case 'ws': {
      const { kind, only, skip, ...target } = options;
      return runChecks({ kind, subject: target.url, checks: (await import('./ws/index.ts')).wsChecks(), target, selection, ...checkBound(options.timeoutMs) });
    }
    default:
      throw new TypeError(`runConformance: kind must be 'executor', 'http' or 'ws', got ${JSON.stringify((options as { kind?: unknown }).kind)}.`);
  }
}

function checkBound(timeoutMs: number | undefined): { timeoutMs?: number } {
  return timeoutMs === undefined ? {} : { timeoutMs: timeoutMs * 6 };
}

async function runExecutor(options: CommonConformanceOptions & ExecutorConformanceOptions, selection: CheckSelection): Promise<ConformanceReport> {
  const { DEFAULT_DIFFERENTIAL, executorChecks, loadExecutorModule } = await import('./executor/index.ts');
  const target = typeof options.module === 'string' ? await loadExecutorModule(options.module) : options.module;
  const generated = options.generated === false ? false : { ...DEFAULT_DIFFERENTIAL, ...options.generated };
  if (generated !== false && (!Number.isInteger(generated.count) || generated.count < 0 || !Number.isInteger(generated.seed))) {
    throw new TypeError(`runConformance: generated.count must be a non-negative integer and generated.seed an integer, got ${JSON.stringify(generated)}.`);
  }
  const checks = (await executorChecks(generated === false ? { count: 0, seed: 0 } : generated)).filter(
    (check) => (options.cases !== false || check.id.startsWith('executor.differential.')) && (generated !== false || !check.id.startsWith('executor.differential.')),
  );
  const subject = typeof options.module === 'string' ? options.module : 'an executor given as functions';
  return runChecks({ kind: 'executor', subject, checks, target, selection, ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }) });
}
