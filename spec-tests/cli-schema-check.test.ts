/**
 * The package's `schema-check` command (src/cli/schemaCheck.ts, run by the bin src/cli/main.ts):
 * what it prints and the code it exits with, for SDL files and modules, breaking changes with
 * and without --allow-breaking, published routes, and every misuse.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { USAGE, runCommand } from '../src/cli/commands.ts';
import { SCHEMA_CHECK_USAGE } from '../src/cli/schemaCheck.ts';
import { byMajor } from './support/graphqlMajor.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PUBLISHED = 'fixtures/schema-check/published.graphql';
const MODULE = 'fixtures/schema-check/schemas.mjs';
const TITLE_REMOVED = byMajor({ 16: 'Book.title was removed.', 17: 'Field Book.title was removed.' });

describe('schema-check', () => {
  it('a module’s default export with a field added: the change, minor, exit 0', async () => {
    expect(await runCommand(['schema-check', PUBLISHED, MODULE])).toEqual({
      code: 0,
      stdout: [`Comparing ${MODULE} with ${PUBLISHED}:`, 'Additions (1):', '  FIELD_ADDED: Book.pages was added.', 'Version: raise the minor part (additions or dangerous changes, none breaking).'].join('\n'),
      stderr: '',
    });
  });

  it('the same schema on both sides: no changes, no new version, exit 0', async () => {
    expect(await runCommand(['schema-check', PUBLISHED, PUBLISHED])).toEqual({
      code: 0,
      stdout: `Comparing ${PUBLISHED} with ${PUBLISHED}:\nNo changes: the schema asks for no new version.`,
      stderr: '',
    });
  });

  it('a breaking change exits 1 saying so, and 0 with --allow-breaking', async () => {
    const stdout = [`Comparing ${MODULE}#withoutTitle with ${PUBLISHED}:`, 'Breaking changes (1):', `  FIELD_REMOVED: ${TITLE_REMOVED}`, 'Version: raise the major part (breaking changes).'].join('\n');
    expect(await runCommand(['schema-check', PUBLISHED, `${MODULE}#withoutTitle`])).toEqual({
      code: 1,
      stdout,
      stderr: 'schema-check: breaking changes (pass --allow-breaking to accept them for a major release).',
    });
    expect(await runCommand(['schema-check', '--allow-breaking', PUBLISHED, `${MODULE}#withoutTitle`])).toEqual({ code: 0, stdout, stderr: '' });
  });

  it('a published route that no longer validates exits 1, even with --allow-breaking', async () => {
    const outcome = await runCommand(['schema-check', PUBLISHED, `${MODULE}#withoutTitle`, '--routes', `${MODULE}#routes`, '--allow-breaking']);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout.split('\n').slice(-2)).toEqual(['Published routes that no longer validate (1):', '  GET /books/{id} (v1): Cannot query field "title" on type "Book".']);
    expect(outcome.stderr).toBe('schema-check: published routes no longer validate.');
  });

  it.each<[string, string[], string]>([
    ['one schema only', ['schema-check', PUBLISHED], 'schema-check takes two schemas, the published one and the current one; got 1.'],
    ['an unknown option', ['schema-check', PUBLISHED, MODULE, '--force'], 'Unknown option --force.'],
    ['--routes without a module', ['schema-check', PUBLISHED, MODULE, '--routes'], '--routes needs a module.'],
  ])('misuse (%s) exits 2 with the reason and the usage', async (_title, args, reason) => {
    expect(await runCommand(args)).toEqual({ code: 2, stdout: '', stderr: `${reason}\n\n${SCHEMA_CHECK_USAGE}` });
  });

  it.each<[string, string[], string]>([
    ['a missing file', ['schema-check', 'no/such.graphql', MODULE], "schema-check: ENOENT: no such file or directory, open 'no/such.graphql'"],
    ['an export that is no schema', ['schema-check', PUBLISHED, `${MODULE}#notASchema`], `schema-check: ${MODULE}#notASchema does not export a GraphQLSchema (name it with ${MODULE}#notASchema#<export>).`],
    ['an export that does not exist', ['schema-check', PUBLISHED, `${MODULE}#nothing`], `schema-check: ${MODULE} has no export named nothing.`],
    ['routes where a schema goes', ['schema-check', PUBLISHED, `${MODULE}#routes`], `schema-check: ${MODULE}#routes does not export a GraphQLSchema (name it with ${MODULE}#routes#<export>).`],
  ])('a schema that cannot be read (%s) exits 2 saying why', async (_title, args, stderr) => {
    expect(await runCommand(args)).toEqual({ code: 2, stdout: '', stderr });
  });

  it('answers --help with its usage, and the bin answers no command with the commands', async () => {
    expect(await runCommand(['schema-check', '--help'])).toEqual({ code: 0, stdout: SCHEMA_CHECK_USAGE, stderr: '' });
    expect(await runCommand([])).toEqual({ code: 2, stdout: USAGE, stderr: '' });
    expect(await runCommand(['nope'])).toEqual({ code: 2, stdout: '', stderr: `Unknown command nope.\n\n${USAGE}` });
  });

  it('the bin writes what the command answers and exits with its code', async () => {
    const run = promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'schema-check', PUBLISHED, `${MODULE}#withoutTitle`], { cwd: ROOT });
    await expect(run).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining(`  FIELD_REMOVED: ${TITLE_REMOVED}\n`),
      stderr: 'schema-check: breaking changes (pass --allow-breaking to accept them for a major release).\n',
    });
  });
});
