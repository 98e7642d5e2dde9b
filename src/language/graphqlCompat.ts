/**
 * graphqlCompat: everything that differs between the two majors of graphql this package runs on,
 * 16 (from 16.9) and 17, and nothing else.
 *
 * graphql is a peer dependency: the executor runs on the copy the user's project installed, so
 * that a schema built with the user's `buildSchema` is one this package can read (two copies of
 * graphql in one process reject each other's schemas). Whatever graphql-js itself decides
 * (parsing, validation, variable and argument coercion, their messages) comes from that copy, so
 * it is the installed major's by construction. What the executor decides itself, and 17 decides
 * differently from 16, is listed here, each with the major it belongs to:
 *
 * | what                                   | graphql 16                      | graphql 17                              |
 * |----------------------------------------|---------------------------------|-----------------------------------------|
 * | coerced variables (`getVariableValues`)| a record of values by name      | `{ sources, coerced }`                  |
 * | `info.variableValues`                  | that record                     | that `{ sources, coerced }` object      |
 * | `info` members                         | ten                             | twelve: `getAbortSignal`, `getAsyncHelpers` |
 * | a leaf value's output coercion         | `serialize`                     | `coerceOutputValue`                     |
 * | `resolveType` returning a type object  | an error of its own             | the error of any non-string answer      |
 * | an object's `isTypeOf`                 | asked after choosing its fields | asked before                            |
 * | a fragment spread seen before          | skipped before its @skip/@include are read | after                       |
 * | an awaited value's error is recorded   | a microtask after it settles    | as it settles                           |
 * | an object whose Non-Null field fails   | waits for its pending fields    | fails at once                           |
 * | work pending inside a nulled part      | waited for                      | abandoned: the result comes without it  |
 * | `@experimental_disableErrorPropagation`| (no such directive)             | a Non-Null error stays at its position  |
 * | `abortSignal` in the arguments         | ignored                         | aborts: `AbortedGraphQLExecutionError`  |
 * | no document, variables not an object   | its own errors                  | a TypeError reading it; variables as given |
 * | a schema with `@defer` or `@stream`    | executed                        | `execute` throws (but makeSchema's own) |
 * | `execute` of an operation that defers  | runs it whole, in one result    | rejects: "would unexpectedly produce multiple payloads" |
 * | a list value that is an AsyncIterable  | "Expected Iterable" (a field error) | its items, awaited one by one  |
 * | `@defer`, `@stream` and their rules    | ours, identical (incrementalDirectives.ts, incrementalRules.ts) | graphql's own |
 * | a subscribe resolver's non-stream      | `subscribe` rejects             | a field error in the result             |
 * | any other error making the source      | `subscribe` rejects             | an error in the result                  |
 * | a subscription's variables are coerced | again for every event           | once, shared by its events              |
 * | `subscribe` given a query or mutation  | runs it on the subscription root| throws "Expected subscription operation." |
 * | `subscribe(schema, document, …)`       | rejects, naming graphql 16      | throws graphql's misuse error           |
 * | what `subscribe` answers with          | always a promise                | a value, unless the subscribe resolver's answer is a promise |
 * | a custom scalar's functions            | `serialize`, `parseValue`, `parseLiteral` | also `coerceOutputValue`, `coerceInputValue`, `coerceInputLiteral`, `valueToLiteral` |
 * | `graphql:parse`, `graphql:validate`     | published by ours (tracingChannels.ts) | published by graphql's parse, validate |
 * | awaiting a traced promise              | the promise                     | its publication, a microtask later      |
 *
 * Modules ask this one for a behaviour (a function or a flag named after it), never for the
 * major: the table above is the whole of the difference.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as graphql from 'graphql';
import { inspect } from '../jsutils/inspect.ts';
import { defineDeferDirective, defineStreamDirective } from './incrementalDirectives.ts';
import { OWN_INCREMENTAL_RULES } from './incrementalRules.ts';
import type { DirectiveNode, FieldNode, GraphQLDirective, GraphQLError, ValidationRule, GraphQLField, GraphQLLeafType, GraphQLSchema, OperationDefinitionNode, VariableDefinitionNode } from 'graphql';

/** The installed graphql's version, e.g. `17.1.0`. */
export const GRAPHQL_VERSION: string = graphql.version;

/** The installed graphql's major (16 or 17 when supported; see `unsupportedGraphqlVersion`). */
export const GRAPHQL_MAJOR: number = graphql.versionInfo.major;

const IS_17 = GRAPHQL_MAJOR >= 17;

/** The peer range this package supports, as package.json states it. */
export const SUPPORTED_GRAPHQL = '^16.9.0 || ^17.0.0';

/**
 * Null when the installed graphql is one this package supports; else the sentence saying why not,
 * for the error thrown where a schema first reaches the package.
 */
export function unsupportedGraphqlVersion(): string | null {
  const { major, minor } = graphql.versionInfo;
  if ((major === 16 && minor >= 9) || major === 17) return null;
  return `graphql-glassbox runs on graphql ${SUPPORTED_GRAPHQL}, but this project has graphql ${GRAPHQL_VERSION}. Install one graphql in that range (npm install graphql@17); this package uses the one your project has.`;
}

/**
 * Throws one clear error when `schema` cannot run here: the installed graphql is outside the
 * supported range, or the schema was built by another copy of graphql (another version, or a
 * second instance of the same one: two copies reject each other's schemas, and graphql's own
 * error for that comes from deep inside and names neither). `entry` names the function called.
 */
export function assertUsableSchema(schema: unknown, entry: string): void {
  const unsupported = unsupportedGraphqlVersion();
  if (unsupported !== null) throw new Error(`${entry}: ${unsupported}`);
  if (isOwnSchema(schema) || !looksLikeSchema(schema)) return;
  throw new TypeError(
    `${entry}: the schema was built by another copy of graphql (${foreignGraphql(schema)}) than the one this package uses (graphql ${GRAPHQL_VERSION}${installedAt()}). Install one graphql; this package uses the one your project has (\`npm ls graphql\` lists every copy).`,
  );
}

/** Whether the installed graphql made this schema. (graphql 16 throws its own realm error for a look-alike outside production.) */
function isOwnSchema(schema: unknown): boolean {
  try {
    return graphql.isSchema(schema);
  } catch {
    return false;
  }
}

function looksLikeSchema(value: unknown): value is object {
  return typeof value === 'object' && value !== null && typeof (value as { getQueryType?: unknown }).getQueryType === 'function';
}

/** Which graphql made a schema, as far as its shape tells: 17 marks its objects with `__kind`; 16 added `getRootType`. */
function foreignGraphql(schema: object): string {
  const major = '__kind' in schema ? 17 : typeof (schema as { getRootType?: unknown }).getRootType === 'function' ? 16 : 15;
  if (major === GRAPHQL_MAJOR) return `a second instance of graphql ${major}`;
  return major === 15 ? 'graphql 15 or older' : `graphql ${major}`;
}

/** Where the installed graphql is, for the message above: the folder of its package.json. */
function installedAt(): string {
  try {
    let folder = dirname(createRequire(import.meta.url).resolve('graphql'));
    while (!existsSync(join(folder, 'package.json')) && dirname(folder) !== folder) folder = dirname(folder);
    return ` at ${folder}`;
  } catch {
    return '';
  }
}

/**
 * A request's coerced variables as the installed graphql represents them: the values by name
 * (16), or `{ sources, coerced }` (17). Opaque outside this module but for `valuesOf`; it is what
 * graphql-js's own coercion functions take, and what `info.variableValues` is.
 */
export type VariableValues = { readonly __variableValues: unique symbol };

/** 17's representation (graphql's own type under 17; spelled out so that this compiles under 16's types too). */
interface Graphql17VariableValues {
  readonly sources: Readonly<Record<string, unknown>>;
  readonly coerced: Readonly<Record<string, unknown>>;
}

/** The coerced values by name. */
export const valuesOf: (variables: VariableValues) => Readonly<Record<string, unknown>> = IS_17
  ? (variables) => (variables as unknown as Graphql17VariableValues).coerced
  : (variables) => variables as unknown as Readonly<Record<string, unknown>>;

export interface CoercionOptions {
  readonly maxErrors?: number | undefined;
  readonly hideSuggestions?: boolean | null | undefined;
}

/** CoerceVariableValues (spec 6.1.2), by the installed graphql: the values, or its request errors. */
export function coerceVariableValues(
  schema: GraphQLSchema,
  definitions: ReadonlyArray<VariableDefinitionNode>,
  inputs: Readonly<Record<string, unknown>>,
  options?: CoercionOptions,
): { readonly variables: VariableValues; readonly errors?: undefined } | { readonly errors: ReadonlyArray<GraphQLError>; readonly variables?: undefined } {
  const coercionOptions = options === undefined ? undefined : { maxErrors: options.maxErrors ?? 50, hideSuggestions: options.hideSuggestions ?? false };
  const result = graphql.getVariableValues(schema, definitions, inputs, coercionOptions) as {
    errors?: ReadonlyArray<GraphQLError>;
    coerced?: Record<string, unknown>;
    variableValues?: Graphql17VariableValues;
  };
  if (result.errors !== undefined) return { errors: result.errors };
  return { variables: (IS_17 ? result.variableValues : result.coerced) as unknown as VariableValues };
}

/**
 * Empty maps that inherit nothing, as graphql-js's (`'toString' in map` is false), made by a
 * constructor: `Object.create(null)` makes slow dictionary-mode objects.
 */
const EmptyMap = function EmptyMap() {} as unknown as new () => Record<string, unknown>;
EmptyMap.prototype = Object.create(null);

/** What an operation that declares no variables runs with: a new, empty set per request, as graphql-js makes. */
export const noVariables: () => VariableValues = IS_17
  ? () => ({ sources: new EmptyMap(), coerced: new EmptyMap() }) as unknown as VariableValues
  : () => ({}) as unknown as VariableValues;

/**
 * CoerceArgumentValues (spec 6.4.1), by the installed graphql. Without `variables` only literals
 * can be read (the planner coerces arguments made of literals once, with none).
 */
export function argumentValues(
  definition: GraphQLField<unknown, unknown> | GraphQLDirective,
  node: FieldNode | DirectiveNode,
  variables: VariableValues | undefined,
  hideSuggestions?: boolean | null,
): Record<string, unknown> {
  if (IS_17) return (graphql.getArgumentValues as Graphql17ArgumentValues)(definition, node, variables, undefined, hideSuggestions ?? false);
  return graphql.getArgumentValues(definition, node, variables as never);
}

type Graphql17ArgumentValues = (
  definition: GraphQLField<unknown, unknown> | GraphQLDirective,
  node: FieldNode | DirectiveNode,
  variables: VariableValues | undefined,
  fragmentVariables: undefined,
  hideSuggestions: boolean,
) => Record<string, unknown>;

/** A directive's arguments on a node (`@skip(if: $x)`), by the installed graphql; undefined when absent. */
export function directiveValues(
  directive: GraphQLDirective,
  node: { readonly directives?: ReadonlyArray<DirectiveNode> | undefined },
  variables: VariableValues | undefined,
): Record<string, unknown> | undefined {
  return graphql.getDirectiveValues(directive, node, variables as never);
}

/** The name of a leaf type's output coercion, as the installed graphql's messages call it. */
export const OUTPUT_COERCION: 'serialize' | 'coerceOutputValue' = IS_17 ? 'coerceOutputValue' : 'serialize';

/** CoerceResult for a leaf type: the scalar's or enum's output coercion, as the installed graphql's executor calls it. */
export function outputCoercion(type: GraphQLLeafType): (value: unknown) => unknown {
  const coerce = (type as unknown as Record<string, (value: unknown) => unknown>)[OUTPUT_COERCION] as (value: unknown) => unknown;
  return (value) => coerce.call(type, value);
}

/** Whether an enum type coerces output values with graphql's own enum coercion (nothing overridden). */
export function hasBuiltInEnumCoercion(type: graphql.GraphQLEnumType): boolean {
  const method = OUTPUT_COERCION as 'serialize';
  return type[method] === graphql.GraphQLEnumType.prototype[method];
}

/**
 * Whether `resolveType` returning a GraphQLObjectType (not its name) gets 16's error of its own;
 * under 17 it is refused as any answer that is not a string.
 */
export const REFUSES_TYPE_OBJECT_FROM_RESOLVE_TYPE = !IS_17;

/**
 * Whether CollectFields reads a fragment spread's `@skip`/`@include` before checking that the
 * fragment was already followed (17), not after (16): with a condition that cannot be coerced,
 * a repeated spread is an error under 17 only.
 */
export const SPREAD_CONDITIONS_FIRST = IS_17;

/**
 * Whether an object type's `isTypeOf` is asked before its field list is chosen (17), so that its
 * refusal is the error reported, rather than one from choosing the fields (16).
 */
export const IS_TYPE_OF_FIRST = IS_17;

/**
 * Whether the error of an awaited value (a rejection, or a failure completing what it resolved
 * to) is recorded a microtask after it surfaces (16: a second `then` handles it), not at once
 * (17: the `await` and the `catch` are one step). It decides the order of the errors list.
 */
export const AWAITED_ERRORS_WAIT_A_MICROTASK = !IS_17;

/**
 * Whether an object whose Non-Null field failed, and the response, wait for work still pending
 * beneath (16: a `Promise.all` per object waits for its fields first), or go on at once and leave
 * it behind (17: the failure propagates at once, and the result is built without what is still
 * pending inside nulled parts). It decides when the result comes, and whether synchronously.
 */
export const ABANDONS_NULLED_WORK = IS_17;

/** The end of the message for a `resolveType` answer that is not a type name (17 says why). */
export const NOT_A_TYPE_NAME_SUFFIX = IS_17 ? ', which is not a valid Object type name' : '';

/**
 * Whether errors propagate to the nearest nullable position in this operation. Always under 16;
 * under 17 an operation marked `@experimental_disableErrorPropagation` (a directive the schema
 * must declare) keeps each error at the position where it happened, null there, Non-Null or not.
 */
export function propagatesErrors(operation: OperationDefinitionNode): boolean {
  if (!IS_17) return true;
  return !(operation.directives ?? []).some((directive) => directive.name.value === 'experimental_disableErrorPropagation');
}

/** What a custom scalar's configuration may give, besides its name and description, under the installed graphql. */
export const SCALAR_FUNCTIONS: ReadonlyArray<string> = IS_17
  ? ['serialize', 'parseValue', 'parseLiteral', 'coerceOutputValue', 'coerceInputValue', 'coerceInputLiteral', 'valueToLiteral', 'specifiedByURL']
  : ['serialize', 'parseValue', 'parseLiteral', 'specifiedByURL'];

/** Scalar functions that only graphql 17 reads: named in the error for giving one under 16. */
export const GRAPHQL_17_SCALAR_FUNCTIONS: ReadonlyArray<string> = ['coerceOutputValue', 'coerceInputValue', 'coerceInputLiteral', 'valueToLiteral'];

/**
 * Whether graphql's own `parse` and `validate` publish the `graphql:parse` and `graphql:validate`
 * tracing channels (17), so that ours must not publish them again (tracingChannels.ts).
 */
export const PUBLISHES_PARSE_AND_VALIDATE = IS_17;

/**
 * Whether what awaits a traced promise (a resolver's, the execution's) awaits its publication
 * too, a microtask later (17: graphql's executor awaits the promise its tracing chains on, which
 * moves the errors of a listened-to execution in the errors list), or the promise itself (16,
 * which publishes nothing: a listener must not change its results). tracingChannels.ts.
 */
export const AWAITS_PUBLISHED_SETTLING = IS_17;

/** Whether `info` has 17's `getAbortSignal()` and `getAsyncHelpers()`. */
export const INFO_HAS_EXECUTION_HELPERS = IS_17;

/**
 * Whether execute() checks its arguments with graphql 16's messages ("Must provide document.",
 * variables that are not an object); graphql 17 checks the schema first, then just reads them.
 */
export const CHECKS_EXECUTION_ARGUMENTS = !IS_17;

/** Whether a list field's value may be an AsyncIterable, its items awaited in order (17), or is "Expected Iterable" (16). */
export const COMPLETES_ASYNC_ITERABLE_LISTS = IS_17;

/** Whether `abortSignal` in execute()'s arguments aborts the execution (17), or is ignored (16). */
export const HONOURS_ABORT_SIGNAL = IS_17;

/** graphql 17's own directive objects, read without naming them (16's types lack them). */
const graphql17 = graphql as unknown as {
  GraphQLDeferDirective?: GraphQLDirective;
  GraphQLStreamDirective?: GraphQLDirective;
  DeferStreamDirectiveOnRootFieldRule?: ValidationRule;
  DeferStreamDirectiveOnValidOperationsRule?: ValidationRule;
  DeferStreamDirectiveLabelRule?: ValidationRule;
  StreamDirectiveOnListFieldRule?: ValidationRule;
};

/** `@defer`: graphql 17's own definition, or an identical one under 16 (incrementalDirectives.ts). */
export const DEFER_DIRECTIVE: GraphQLDirective = IS_17 ? (graphql17.GraphQLDeferDirective as GraphQLDirective) : defineDeferDirective();

/** `@stream`: graphql 17's own definition, or an identical one under 16. */
export const STREAM_DIRECTIVE: GraphQLDirective = IS_17 ? (graphql17.GraphQLStreamDirective as GraphQLDirective) : defineStreamDirective();

/**
 * The validation rules of `@defer` and `@stream`: graphql 17's own (which its `specifiedRules`
 * already include), or ours with the same messages under 16 (incrementalRules.ts), which
 * `specifiedRules` lacks.
 */
export const INCREMENTAL_RULES: ReadonlyArray<ValidationRule> = IS_17
  ? [
      graphql17.DeferStreamDirectiveOnRootFieldRule as ValidationRule,
      graphql17.DeferStreamDirectiveOnValidOperationsRule as ValidationRule,
      graphql17.DeferStreamDirectiveLabelRule as ValidationRule,
      graphql17.StreamDirectiveOnListFieldRule as ValidationRule,
    ]
  : (OWN_INCREMENTAL_RULES as ReadonlyArray<ValidationRule>);

/**
 * Whether `execute` refuses to run an operation that would defer or stream (17: its `execute`
 * rejects with AbortedGraphQLExecutionError, "Executing this GraphQL operation would unexpectedly
 * produce multiple payloads"), rather than running it whole, in one result (16, which knows no
 * such directives).
 */
export const EXECUTE_REFUSES_INCREMENTAL = IS_17;

/** The error graphql 17's `execute` gives for an operation that would defer or stream. */
export const MULTIPLE_PAYLOADS_MESSAGE = 'Executing this GraphQL operation would unexpectedly produce multiple payloads (due to @defer or @stream directive)';

/**
 * Schemas whose `@defer` and `@stream` the engine declared itself (makeSchema): incremental
 * delivery is enabled on them explicitly, so `execute` runs their other operations under 17 too.
 */
const incrementalSchemas = new WeakSet<GraphQLSchema>();

/** Marks a schema as one whose incremental directives were enabled explicitly (makeSchema). */
export function enableIncrementalDelivery(schema: GraphQLSchema): void {
  incrementalSchemas.add(schema);
}

/**
 * Under 17, what `execute` throws for a schema that declares `@defer` or `@stream` (17's `execute`
 * refuses such a schema: incremental delivery goes through `experimentalExecuteIncrementally`);
 * null under 16, for a schema makeSchema made (enableIncrementalDelivery), and for any other schema.
 */
export function incrementalSchemaError(schema: GraphQLSchema): Error | null {
  if (!IS_17 || incrementalSchemas.has(schema) || (schema.getDirective('defer') == null && schema.getDirective('stream') == null)) return null;
  return new Error(
    'The provided schema unexpectedly contains experimental directives (@defer or @stream). These directives may only be utilized if experimental execution features are explicitly enabled.',
  );
}

/** Whether any error in making a subscription's source stream is an error in the result (17), not a rejection (16). */
export const ANY_SOURCE_ERROR_IS_A_RESULT = IS_17;

/** Whether a subscription's variables are coerced again for every event (16), or once for all of them (17). */
export const COERCES_VARIABLES_PER_EVENT = !IS_17;

/** Whether `subscribe` refuses an operation that is not a subscription (17), at once, before it answers. */
export const CHECKS_SUBSCRIPTION_OPERATION = IS_17;

/**
 * Whether `subscribe` answers at once unless the subscribe resolver answers with a promise (17:
 * its `subscribe` returns a PromiseOrValue, so its graphql:subscribe publication then ends at
 * `end`, without asyncStart and asyncEnd), or always with a promise (16's is an async function).
 */
export const SUBSCRIBES_SYNCHRONOUSLY = IS_17;

/** Whether `subscribe` refuses graphql 15's positional arguments with 16's own message. */
export const REFUSES_POSITIONAL_SUBSCRIBE = !IS_17;

/**
 * What graphql-js throws when `@skip`/`@include` leave a subscription no root field: V8's words
 * for taking `undefined` apart, as each major's code does it.
 */
export const NO_ROOT_FIELD_MESSAGE = IS_17 ? 'firstRootField is not iterable' : 'undefined is not iterable (cannot read property Symbol(Symbol.iterator))';

/** graphql 17's ensureGraphQLError: a GraphQLError as it is; anything else wrapped, with its message. */
export function ensureGraphQLError(raw: unknown): graphql.GraphQLError {
  if (raw instanceof graphql.GraphQLError) return raw;
  const originalError = raw instanceof Error ? raw : new Error(`Unexpected error value: ${inspect(raw)}`);
  return new graphql.GraphQLError(originalError.message, { originalError });
}

/** Whether a subscribe resolver's answer that is not an AsyncIterable is a field error in the result (17), not a rejection (16). */
export const NON_STREAM_IS_FIELD_ERROR = IS_17;

/**
 * 17's error for an aborted execution: `AbortedGraphQLExecutionError`, with the reason's message,
 * the reason as its `cause`, and the result (or its promise) as `abortedResult`.
 */
export function abortedExecutionError(reason: unknown, abortedResult: unknown): Error {
  const Aborted = (graphql as unknown as { AbortedGraphQLExecutionError: new (reason: unknown, result: unknown) => Error }).AbortedGraphQLExecutionError;
  return new Aborted(reason, abortedResult);
}

/**
 * graphql's `specifiedRules` and the incremental delivery rules, each once: under 17 they are
 * `specifiedRules` itself (which includes them), under 16 ours are added.
 */
export const SPECIFIED_AND_INCREMENTAL_RULES: ReadonlyArray<ValidationRule> = [
  ...graphql.specifiedRules,
  ...INCREMENTAL_RULES.filter((rule) => !graphql.specifiedRules.includes(rule)),
];
