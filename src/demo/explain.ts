/**
 * `npm run explain -- '<query>' [--json] [--operation NAME] [--variables JSON]`: what the engine
 * decides about a query against the demo schema, before anything runs (execution/explain.ts): its
 * selection sets and fields, merged fields and fragments, generated or interpreted, the cost
 * analysis, and the rounds in which the demo's loaders would send their batches.
 *
 * Exit codes: 0 explained, or the usage printed for --help (-h); 1 the query does not parse or
 * validate (the errors are printed); 2 no query, or an argument it does not know (the usage is
 * printed on stderr).
 */
import { pathToFileURL } from 'node:url';
import { GraphQLError, parse } from 'graphql';
import { explainOperation, formatExplanation } from '../execution/explain.ts';
import { demoSchema } from './librarySchema.ts';

/**
 * Which loader each of the demo's resolvers loads from (librarySchema.ts `createLoaders`). Only
 * the resolvers' code says so, so it is declared here; spec-tests/explain.test.ts checks it
 * against the batches a traced execution really sends.
 */
export const DEMO_LOADERS: Readonly<Record<string, string>> = {
  'Book.author': 'authorById',
  'Book.reviews': 'reviewsByBook',
  'Book.averageStars': 'reviewsByBook',
  'Author.books': 'booksByAuthor',
};

/** What --help prints (on stdout), and a wrong call (on stderr, after what was wrong). */
export const USAGE = `usage: npm run explain -- '<query>' [--json] [--operation NAME] [--variables JSON]

Explains how the engine would run the query against the demo schema, without running it: its
plan (each field, and whether a resolver is called or the value is a plain read), the cost of
each field, and the batches per level.

  --json             print the same as JSON
  --operation NAME   the operation to explain, when the document has several
  --variables JSON   the operation's variables, as a JSON object
  --help, -h         print this

  npm run explain -- '{ books(limit: 3) { items { title author { name } } } }'`;

/** What a run of the command prints, and its exit code: a function, so that tests call it without a process. */
export function runExplain(args: ReadonlyArray<string>): { stdout: string; stderr: string; code: number } {
  let query: string | undefined;
  let json = false;
  let operationName: string | undefined;
  let variables: Record<string, unknown> | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--help' || arg === '-h') return { stdout: `${USAGE}\n`, stderr: '', code: 0 };
    if (arg === '--json') json = true;
    else if (arg === '--operation' && i + 1 < args.length) operationName = args[++i];
    else if (arg === '--variables' && i + 1 < args.length) {
      try {
        const parsed: unknown = JSON.parse(args[++i] as string);
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new TypeError('not an object');
        variables = parsed as Record<string, unknown>;
      } catch {
        return { stdout: '', stderr: `--variables must be a JSON object.\n\n${USAGE}\n`, code: 2 };
      }
    } else if (arg.startsWith('-') || query !== undefined) return { stdout: '', stderr: `Unknown argument ${arg}.\n\n${USAGE}\n`, code: 2 };
    else query = arg;
  }
  if (query === undefined || query.trim() === '') return { stdout: '', stderr: `${USAGE}\n`, code: 2 };

  let document;
  try {
    document = parse(query);
  } catch (error) {
    if (error instanceof GraphQLError) return { stdout: '', stderr: `${formatError(error)}\n`, code: 1 };
    throw error;
  }
  const explained = explainOperation(demoSchema, document, operationName, { variables, loaders: DEMO_LOADERS });
  if ('errors' in explained) return { stdout: '', stderr: `${explained.errors.map(formatError).join('\n')}\n`, code: 1 };
  return { stdout: `${json ? JSON.stringify(explained, null, 2) : formatExplanation(explained)}\n`, stderr: '', code: 0 };
}

/** An error as a person reads it: where, then what. */
function formatError(error: GraphQLError): string {
  const where = error.locations?.map((location) => `${location.line}:${location.column}`).join(', ');
  return where === undefined || where === '' ? error.message : `${where} ${error.message}`;
}

// Run as the script (not when a test imports it).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { stdout, stderr, code } = runExplain(process.argv.slice(2));
  process.stdout.write(stdout);
  process.stderr.write(stderr);
  process.exitCode = code;
}
