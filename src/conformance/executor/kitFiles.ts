/**
 * Where the executor target finds its fixture schemas and its cases. They are the repository's
 * `fixtures/` (SDL, resolvers, data; `fixtures/cases/*.json`, one file per spec section), which
 * the spec-tests run too; the build (scripts/build-fixtures.mjs) compiles them into the package's
 * `dist/fixtures/`. So the path is tried as the package lays it out, then as the repository does.
 *
 * The fixtures build their schemas with the graphql this package resolves: the project's own (a
 * peer dependency), the one whose `execute` the module under test should be built on.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { GraphQLSchema } from 'graphql';

/** One execution's schema and fresh data, as fixtures/types.ts declares it. */
export interface FixtureRun {
  schema: GraphQLSchema;
  rootValue?: unknown;
  contextValue?: unknown;
}

export interface KitFixture {
  name: string;
  run(): FixtureRun;
}

export interface ExpectedError {
  message: string;
  locations?: Array<{ line: number; column: number }>;
  path?: Array<string | number>;
  extensions?: Record<string, unknown>;
}

export interface ExpectedResponse {
  data?: Record<string, unknown> | null;
  errors?: ExpectedError[];
}

/**
 * One case of fixtures/cases/<section>.json. The spec-tests and fixtures/cases/generate.ts read
 * the same files, through fixtures/cases/case.ts, which re-exports this.
 */
export interface KitCase {
  /** A sentence about the behaviour the case pins down. */
  name: string;
  /** Name of the fixture whose schema and data the case runs against. */
  fixture: string;
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  /** What the spec requires, as graphql 16 words it; absent only in a case the generator has yet to fill. */
  expected?: ExpectedResponse;
  /**
   * graphql 17's response, where it differs from graphql 16's: in wording (17 rewrote the
   * messages of variable coercion, and names output coercion `coerceOutputValue`), and in what 17
   * defines itself (`@deprecated(reason:)` is `String!`).
   */
  expectedGraphql17?: ExpectedResponse;
}

export interface KitSection {
  /** The file's name without `.json`: `6.4-arguments`. */
  section: string;
  cases: KitCase[];
}

/** The fixtures folder: dist/fixtures in the package, fixtures/ in the repository. */
function fixturesFolder(): URL {
  for (const relative of ['../../fixtures/', '../../../fixtures/']) {
    const folder = new URL(relative, import.meta.url);
    if (existsSync(fileURLToPath(new URL('cases/', folder)))) return folder;
  }
  throw new Error('The conformance kit cannot find its fixtures (dist/fixtures in the package, fixtures/ in the repository).');
}

/** Every fixture, by name; the modules build their schemas when first imported. */
export async function loadFixtures(): Promise<Map<string, KitFixture>> {
  const folder = fixturesFolder();
  const entry = new URL(existsSync(fileURLToPath(new URL('index.js', folder))) ? 'index.js' : 'index.ts', folder);
  const module = (await import(entry.href)) as { fixtures: KitFixture[] };
  return new Map(module.fixtures.map((fixture) => [fixture.name, fixture]));
}

/** Every section's cases, in the order of their file names. */
export function loadSections(): KitSection[] {
  const cases = new URL('cases/', fixturesFolder());
  return readdirSync(fileURLToPath(cases))
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ section: file.replace(/\.json$/, ''), cases: JSON.parse(readFileSync(new URL(file, cases), 'utf8')) as KitCase[] }));
}

/** One case of fixtures/incremental/cases.ts. */
export interface KitIncrementalCase {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  /** A fresh root value per run. */
  root(): unknown;
  early?: boolean;
}

export interface IncrementalCases {
  schema: GraphQLSchema;
  deferCases: ReadonlyArray<KitIncrementalCase>;
  streamCases: ReadonlyArray<KitIncrementalCase>;
  /** graphql-js 17's payloads, by `@<directive> <name> (<format>)`. */
  expected: Record<string, unknown>;
}

/** The incremental delivery cases and graphql-js 17's recorded payloads. */
export async function loadIncremental(): Promise<IncrementalCases> {
  const folder = new URL('incremental/', fixturesFolder());
  const entry = new URL(existsSync(fileURLToPath(new URL('cases.js', folder))) ? 'cases.js' : 'cases.ts', folder);
  const module = (await import(entry.href)) as Omit<IncrementalCases, 'expected'>;
  const expected = JSON.parse(readFileSync(new URL('expected.json', folder), 'utf8')) as Record<string, unknown>;
  return { schema: module.schema, deferCases: module.deferCases, streamCases: module.streamCases, expected };
}

/** The response a case expects from graphql of this major (17 words some messages differently). */
export function expectedFor(testCase: KitCase, major: number): ExpectedResponse | undefined {
  return major >= 17 && testCase.expectedGraphql17 !== undefined ? testCase.expectedGraphql17 : testCase.expected;
}
