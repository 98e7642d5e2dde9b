/**
 * The executor target of the conformance kit (`graphql-glassbox conformance executor <module>`):
 * every case of fixtures/cases (one check per case, one file per spec section), subscriptions when
 * the module exports subscribe, the incremental delivery cases when it exports
 * experimentalExecuteIncrementally, then the differential
 * run against the installed graphql-js (one check per fixture).
 *
 * While a check runs, a rejected promise nobody handles is absorbed: graphql-js itself leaves some
 * behind when a list item fails while a sibling is pending, and such a promise must not end the
 * run. How an executor treats abandoned work is not what these checks are about.
 */
import type { Check } from '../check.ts';
import { caseChecks } from './caseChecks.ts';
import { differentialChecks } from './differential.ts';
import type { DifferentialOptions } from './differential.ts';
import { incrementalChecks } from './incrementalChecks.ts';
import { loadFixtures, loadIncremental, loadSections } from './kitFiles.ts';
import { subscriptionChecks } from './subscriptionChecks.ts';
import type { ExecutorTarget } from './target.ts';

export { loadExecutorModule } from './target.ts';
export type { ExecutorTarget, ExecuteFunction } from './target.ts';
export type { DifferentialOptions } from './differential.ts';

export const DEFAULT_DIFFERENTIAL: DifferentialOptions = { count: 100, seed: 1 };

/** Every executor check: the cases, subscriptions, incremental delivery, then the differential run. */
export async function executorChecks(differential: DifferentialOptions = DEFAULT_DIFFERENTIAL): Promise<Array<Check<ExecutorTarget>>> {
  const fixtures = await loadFixtures();
  const checks = [...caseChecks(loadSections(), fixtures), ...subscriptionChecks(), ...incrementalChecks(await loadIncremental()), ...differentialChecks([...fixtures.values()], differential)];
  return checks.map((check) => ({ ...check, run: (target: ExecutorTarget) => absorbingRejections(() => check.run(target)) }));
}

const ignore = () => undefined;

async function absorbingRejections<T>(run: () => Promise<T>): Promise<T> {
  process.on('unhandledRejection', ignore);
  try {
    return await run();
  } finally {
    await new Promise((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', ignore);
  }
}
