/**
 * `npm start`: runs GraphQL operations against the built-in demo data and prints the results.
 *
 *   npm start                                   runs a tour of example operations
 *   npm start -- '{ books { title } }'          runs one operation
 *   npm start -- 'query ($g: Genre) { books(genre: $g) { title } }' '{"g":"SCIENCE"}'
 *
 * Parse and validate come from graphql-js; execution is ours. (The HTTP server arrives with the
 * server issue; this entry point will then start it.)
 */
import { parse, validate } from 'graphql';
import type { GraphQLError } from 'graphql';
import { execute } from '../execution/execute.ts';
import { createDemoData, demoSchema } from './librarySchema.ts';

const tour = [
  '{ authors { name books { title genre } } }',
  '{ search(text: "co") { __typename ... on Book { title author { name } } ... on Author { name } } }',
  'mutation { addReview(bookId: "b1", stars: 5, text: "Anarres!") { id stars } }',
  '{ node(id: "b1") { id ... on Book { title reviews { stars text } } } }',
];

async function run(source: string, variables: Record<string, unknown> | undefined, context: object): Promise<unknown> {
  let document;
  try {
    document = parse(source);
  } catch (error) {
    return { errors: [(error as GraphQLError).toJSON()] };
  }
  const errors = validate(demoSchema, document);
  if (errors.length > 0) return { errors: errors.map((error) => error.toJSON()) };
  return execute({ schema: demoSchema, document, variableValues: variables, contextValue: context });
}

const [source, variablesJson] = process.argv.slice(2);
const context = { data: createDemoData() };
if (source !== undefined) {
  let variables: Record<string, unknown> | undefined;
  try {
    variables = variablesJson === undefined ? undefined : JSON.parse(variablesJson);
  } catch {
    console.error(`The variables must be a JSON object, got: ${variablesJson}`);
    process.exit(2);
  }
  console.log(JSON.stringify(await run(source, variables, context), null, 2));
} else {
  for (const operation of tour) {
    console.log(`> ${operation}`);
    console.log(JSON.stringify(await run(operation, undefined, context), null, 2) + '\n');
  }
}
