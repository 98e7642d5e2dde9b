/**
 * Schema evolution (src/schema/schemaEvolution.ts) and `npm run schema:check`: the demo schema
 * against its published one (src/demo/published.graphql) — the check CI runs — and the
 * verdicts for breaking changes, additions and routes that no longer validate.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { compareSchemas, formatReport } from '../src/schema/schemaEvolution.ts';
import { demoSchema } from '../src/demo/librarySchema.ts';
import { byMajor } from './support/graphqlMajor.ts';
import { DEMO_RESOURCES } from '../src/demo/resources.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PUBLISHED = readFileSync(new URL('../src/demo/published.graphql', import.meta.url), 'utf8');

describe('the demo schema against its published schema (the check CI runs)', () => {
  it('has no breaking change, and every published route still validates', () => {
    const report = compareSchemas(PUBLISHED, demoSchema, [DEMO_RESOURCES]);
    expect(report.changes.filter((change) => change.kind === 'breaking')).toEqual([]);
    expect(report.brokenRoutes).toEqual([]);
  });

  it('npm run schema:check prints the comparison and exits 0', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/demo/schemaCheck.ts'], { cwd: ROOT });
    expect(stdout).toBe('Comparing src/demo/librarySchema.ts#demoSchema with src/demo/published.graphql:\nNo changes: the schema asks for no new version.\n');
  });

  it('exits 2, saying why, when the published schema cannot be read', async () => {
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/demo/schemaCheck.ts', 'no/such/file.graphql'], { cwd: ROOT });
    await expect(run).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("schema-check: ENOENT: no such file or directory, open 'no/such/file.graphql'") });
  });
});

describe('compareSchemas', () => {
  const v1 = 'type Query { book(id: ID!): Book } type Book { id: ID! title: String! }';

  it('no change: no new version', () => {
    const report = compareSchemas(v1, buildSchema(v1));
    expect(report).toEqual({ changes: [], bump: 'none', brokenRoutes: [] });
    expect(formatReport(report)).toBe('No changes: the schema asks for no new version.');
  });

  it('a field, an optional argument and a type added: minor, each listed once', () => {
    const current = buildSchema('type Query { book(id: ID!, lang: String): Book author: Author } type Book { id: ID! title: String! pages: Int } type Author { id: ID! }');
    const report = compareSchemas(v1, current);
    expect(report.bump).toBe('minor');
    expect(report.changes).toEqual([
      // The wording of breaking and dangerous changes is graphql-js's own.
      {
        kind: 'dangerous',
        type: 'OPTIONAL_ARG_ADDED',
        description: byMajor({ 16: 'An optional arg lang on Query.book was added.', 17: 'An optional argument Query.book(lang:) was added.' }),
      },
      { kind: 'addition', type: 'FIELD_ADDED', description: 'Query.author was added.' },
      { kind: 'addition', type: 'FIELD_ADDED', description: 'Book.pages was added.' },
      { kind: 'addition', type: 'TYPE_ADDED', description: 'Author was added.' },
    ]);
  });

  it('a field removed and a type changed: major; a route using the removed field is broken', () => {
    const current = buildSchema('type Query { book(id: ID!): Book } type Book { id: ID! }');
    const report = compareSchemas(v1, current, [{ version: 'v1', routes: { 'GET /books/{id}': 'query ($id: ID!) { book(id: $id) { id title } }' } }]);
    expect(report.bump).toBe('major');
    const removed = byMajor({ 16: 'Book.title was removed.', 17: 'Field Book.title was removed.' });
    expect(report.changes).toEqual([{ kind: 'breaking', type: 'FIELD_REMOVED', description: removed }]);
    expect(report.brokenRoutes).toEqual(['GET /books/{id} (v1): Cannot query field "title" on type "Book".']);
    expect(formatReport(report)).toBe(
      [
        'Breaking changes (1):',
        `  FIELD_REMOVED: ${removed}`,
        'Version: raise the major part (breaking changes).',
        'Published routes that no longer validate (1):',
        '  GET /books/{id} (v1): Cannot query field "title" on type "Book".',
      ].join('\n'),
    );
  });
});
