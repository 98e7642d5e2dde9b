/**
 * Resource routes, compiled once at start: each `METHOD /path` of a version is a GraphQL
 * operation, checked before the server serves anything.
 *
 * A route's path names resources, so that every route of every version reads alike: plural,
 * lower-case, hyphenated nouns (`/books`, `/review-drafts`), an item of a collection as a
 * `{param}` segment after it (`/books/{id}/reviews`), no file extensions (the media type is
 * negotiated), no verbs (the method says what to do). Its document must parse, validate
 * against the schema, pass the limits, and select exactly one root field: the resource; a GET
 * paged by cursor also selects its connection's `pageInfo { hasNextPage endCursor }`. A route
 * that breaks any of this is a start-up error naming it.
 *
 * Each variable of the operation is filled from the path parameter, then the query parameter,
 * of its name; for POST, PUT and PATCH the JSON body fills the rest: its members by name, or,
 * when the operation has a single input-object variable not filled otherwise, the whole body
 * is that variable (`POST /books/{id}/reviews` with `{ "stars": 4 }` for `$review: ReviewInput!`).
 */
import { BREAK, GraphQLError, Kind, getNamedType, getNullableType, isInputObjectType, isListType, isScalarType, isEnumType, typeFromAST, valueFromAST, visit } from 'graphql';
import { parse, validate } from '../../language/tracingChannels.ts';
import type { DocumentNode, FieldNode, GraphQLInputType, GraphQLNamedType, GraphQLSchema, OperationDefinitionNode, SelectionSetNode } from 'graphql';
import { checkLimits } from '../../analysis/limits.ts';
import type { Limits } from '../../analysis/limits.ts';

export const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type RouteMethod = (typeof ROUTE_METHODS)[number];

/** One version's routes: `'GET /books/{id}': 'query ($id: ID!) { book(id: $id) { id title } }'`. */
export interface ResourceVersionOptions {
  /** `v1`, `v2`, ... (in the path: `/api/v1/...`). */
  version: string;
  routes: Record<string, string>;
  /** A retired version: answered with Deprecation and Sunset until `sunset`, then 410 Gone. */
  deprecation?: { deprecatedAt: string; sunset: string; link?: string };
  /**
   * Plural nouns the path check does not know as such (it knows regular plurals and common
   * irregular ones: `people`, `children`, `data`...), e.g. `['fish']`.
   */
  pluralNouns?: ReadonlyArray<string>;
}

export interface ResourceVariable {
  readonly name: string;
  readonly type: GraphQLInputType;
  readonly required: boolean;
  /** Its default in the operation, if any (for paging links). */
  readonly defaultValue: unknown;
}

export interface CompiledRoute {
  readonly method: RouteMethod;
  /** As written: `/books/{id}/reviews`. */
  readonly path: string;
  /** Literal segments as strings, parameters as `{ param }`. */
  readonly segments: ReadonlyArray<string | { readonly param: string }>;
  readonly query: string;
  readonly document: DocumentNode;
  readonly operation: OperationDefinitionNode;
  /** The one root field's response key, and the name of its type (for Location). */
  readonly field: string;
  readonly typeName: string;
  readonly variables: ReadonlyArray<ResourceVariable>;
  /** The input-object variable a body stands for as a whole, if any. */
  readonly bodyVariable: string | null;
  /**
   * A sub-collection (`GET /authors/{id}/books`): the one field selected under the root field
   * (`author(id: $id) { books { ... } }`), whose value is the resource; null otherwise.
   */
  readonly subField: string | null;
}

export interface CompiledVersion {
  readonly version: string;
  readonly routes: ReadonlyArray<CompiledRoute>;
  readonly deprecation: { readonly deprecatedAt: Date; readonly sunset: Date; readonly link: string | null } | null;
}

const LITERAL = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;
/** Segments that are verbs, not resources. */
const VERBS = new Set(['get', 'set', 'create', 'update', 'delete', 'remove', 'add', 'list', 'fetch', 'find', 'search', 'edit', 'make', 'do', 'run', 'new', 'save', 'put', 'post', 'patch']);
/** Plurals that do not end in -s, and nouns that are their own plural. */
const IRREGULAR_PLURALS = new Set(['people', 'children', 'men', 'women', 'data', 'metadata', 'media', 'criteria', 'phenomena', 'feet', 'teeth', 'mice', 'geese', 'oxen', 'news', 'series', 'species']);
/** Singular endings in -s: address, status, analysis (their plurals end in -sses, -uses, -ses). */
const SINGULAR_IN_S = /(ss|us|is)$/;

/**
 * Whether a segment names a collection: its last word a plural noun. A heuristic (English has
 * no rule), so a version may list the plurals it does not know (`pluralNouns`).
 */
function isPluralNoun(segment: string, known: ReadonlySet<string>): boolean {
  const word = segment.slice(segment.lastIndexOf('-') + 1);
  if (known.has(segment) || known.has(word) || IRREGULAR_PLURALS.has(word)) return true;
  return word.endsWith('s') && !SINGULAR_IN_S.test(word);
}

export function compileVersion(options: ResourceVersionOptions, schema: GraphQLSchema, limits: Limits): CompiledVersion {
  if (options === null || typeof options !== 'object') throw new TypeError('resources must be { version, routes }.');
  const { version, routes } = options;
  if (typeof version !== 'string' || !/^v[1-9][0-9]*$/.test(version)) throw new TypeError(`resources.version must be like "v1", got ${JSON.stringify(version)}.`);
  if (routes === null || typeof routes !== 'object' || Object.keys(routes).length === 0) throw new TypeError(`resources (${version}) needs routes.`);
  const pluralNouns = options.pluralNouns ?? [];
  if (!Array.isArray(pluralNouns) || pluralNouns.some((noun) => typeof noun !== 'string' || !LITERAL.test(noun))) {
    throw new TypeError(`resources (${version}).pluralNouns must be lower-case words, as in ["fish"].`);
  }
  const known = new Set(pluralNouns);
  const compiled = Object.entries(routes).map(([key, query]) => compileRoute(key, query, schema, limits, version, known));
  const seen = new Set<string>();
  for (const route of compiled) {
    const shape = `${route.method} ${route.segments.map((segment) => (typeof segment === 'string' ? segment : '{}')).join('/')}`;
    if (seen.has(shape)) throw new TypeError(`Route ${route.method} ${route.path} (${version}) is the same path as another ${route.method} route.`);
    seen.add(shape);
  }
  let deprecation: CompiledVersion['deprecation'] = null;
  if (options.deprecation !== undefined) {
    const deprecatedAt = new Date(options.deprecation.deprecatedAt);
    const sunset = new Date(options.deprecation.sunset);
    if (Number.isNaN(deprecatedAt.getTime()) || Number.isNaN(sunset.getTime())) {
      throw new TypeError(`resources (${version}).deprecation needs deprecatedAt and sunset dates (ISO 8601).`);
    }
    deprecation = { deprecatedAt, sunset, link: options.deprecation.link ?? null };
  }
  return { version, routes: compiled, deprecation };
}

function compileRoute(key: string, query: unknown, schema: GraphQLSchema, limits: Limits, version: string, pluralNouns: ReadonlySet<string>): CompiledRoute {
  const name = `Route "${key}" (${version})`;
  const match = /^(GET|POST|PUT|PATCH|DELETE) (\/\S*)$/.exec(key);
  if (match === null) throw new TypeError(`${name}: a route is "METHOD /path", with GET, POST, PUT, PATCH or DELETE.`);
  const method = match[1] as RouteMethod;
  const path = match[2] as string;
  const segments = checkPath(path, name, pluralNouns);
  if (typeof query !== 'string') throw new TypeError(`${name}: its operation must be a GraphQL document (a string).`);
  let document: DocumentNode;
  try {
    document = parse(query);
  } catch (error) {
    throw new TypeError(`${name}: its operation does not parse: ${(error as Error).message}`);
  }
  const errors = validate(schema, document);
  if (errors.length > 0) throw new TypeError(`${name}: its operation does not validate: ${errors.map((error) => error.message).join(' ')}`);
  const operations = document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  if (operations.length !== 1) throw new TypeError(`${name}: its document must hold exactly one operation.`);
  const operation = operations[0] as OperationDefinitionNode;
  if (operation.operation === 'subscription') throw new TypeError(`${name}: a subscription cannot be a resource route.`);
  if (defersOrStreams(document)) throw new TypeError(`${name}: an operation that defers or streams (@defer, @stream) cannot be a resource route: a route answers with one body.`);
  if (method === 'GET' && operation.operation !== 'query') throw new TypeError(`${name}: a GET route must be a query.`);
  if (method !== 'GET' && operation.operation !== 'mutation') throw new TypeError(`${name}: a ${method} route must be a mutation.`);
  const checked = checkLimits({ schema, document, operationName: null, variableValues: null, limits });
  const overLimit = checked.errors.filter((error) => String(error.extensions['code'] ?? '').endsWith('_LIMIT_EXCEEDED'));
  if (overLimit.length > 0) throw new TypeError(`${name}: ${overLimit.map((error) => error.message).join(' ')}`);
  const roots = operation.selectionSet.selections;
  if (roots.length !== 1 || roots[0]?.kind !== Kind.FIELD) throw new TypeError(`${name}: its operation must select exactly one root field (the resource).`);
  const root = roots[0];
  const rootType = operation.operation === 'query' ? schema.getQueryType() : schema.getMutationType();
  const fieldType = rootType?.getFields()[root.name.value]?.type;
  if (fieldType === undefined) throw new TypeError(`${name}: unknown root field ${root.name.value}.`);
  const variables: ResourceVariable[] = (operation.variableDefinitions ?? []).map((definition) => ({
    name: definition.variable.name.value,
    type: typeFromAST(schema, definition.type) as GraphQLInputType,
    required: definition.type.kind === Kind.NON_NULL_TYPE && definition.defaultValue === undefined,
    defaultValue: definition.defaultValue === undefined ? undefined : valueFromAST(definition.defaultValue, typeFromAST(schema, definition.type) as GraphQLInputType),
  }));
  const params = segments.filter((segment): segment is { param: string } => typeof segment !== 'string').map((segment) => segment.param);
  for (const param of params) {
    if (!variables.some((variable) => variable.name === param)) throw new TypeError(`${name}: the path parameter {${param}} is not a variable of its operation.`);
  }
  // A GET of a sub-collection answers the one field under its owner: /authors/{id}/books.
  let subField: string | null = null;
  if (method === 'GET' && segments.length >= 3 && typeof segments[segments.length - 1] === 'string') {
    const under = root.selectionSet?.selections ?? [];
    if (under.length !== 1 || under[0]?.kind !== Kind.FIELD) {
      throw new TypeError(`${name}: a sub-collection's operation selects exactly one field under its owner, as in author(id: $id) { books { id } }.`);
    }
    subField = under[0].alias?.value ?? under[0].name.value;
  }
  // Paged by cursor: the next page's link is made from the connection's pageInfo, so it must be selected.
  if (method === 'GET' && variables.some((variable) => variable.name === 'cursor')) {
    const resource = subField === null ? root : (root.selectionSet?.selections[0] as FieldNode);
    const pageInfo = fieldsOf(resource.selectionSet).find((field) => field.name.value === 'pageInfo' && field.alias === undefined);
    const selected = new Set(fieldsOf(pageInfo?.selectionSet).filter((field) => field.alias === undefined).map((field) => field.name.value));
    if (!selected.has('hasNextPage') || !selected.has('endCursor')) {
      throw new TypeError(`${name}: a route paged by cursor selects pageInfo { hasNextPage endCursor } on its connection, for the link to the next page.`);
    }
  }
  const bodyCandidates = variables.filter((variable) => !params.includes(variable.name) && isInputObjectType(getNullableType(variable.type)));
  const bodyVariable = method !== 'GET' && method !== 'DELETE' && bodyCandidates.length === 1 ? (bodyCandidates[0] as ResourceVariable).name : null;
  return {
    method,
    path,
    segments,
    query,
    document,
    operation,
    field: root.alias?.value ?? root.name.value,
    typeName: (getNamedType(fieldType) as GraphQLNamedType).name,
    variables,
    bodyVariable,
    subField,
  };
}

/** The fields selected directly in a selection set (fragments are not followed: a route's paging fields are written out). */
function fieldsOf(selectionSet: SelectionSetNode | undefined): FieldNode[] {
  return (selectionSet?.selections ?? []).filter((selection): selection is FieldNode => selection.kind === Kind.FIELD);
}

/** The path's segments, checked against the conventions. */
function checkPath(path: string, name: string, pluralNouns: ReadonlySet<string>): Array<string | { param: string }> {
  if (path === '/' || path.endsWith('/')) throw new TypeError(`${name}: a path has no trailing slash.`);
  const parts = path.slice(1).split('/');
  const segments: Array<string | { param: string }> = [];
  for (const [index, part] of parts.entries()) {
    const param = PARAM.exec(part);
    if (param !== null) {
      if (index === 0 || typeof segments[index - 1] !== 'string') throw new TypeError(`${name}: a {param} names an item of the collection before it, as in /books/{id}.`);
      segments.push({ param: param[1] as string });
      continue;
    }
    if (part.includes('.')) throw new TypeError(`${name}: "${part}" has a file extension; paths have none (the media type is negotiated).`);
    if (!LITERAL.test(part)) throw new TypeError(`${name}: "${part}" must be lower-case words joined by hyphens.`);
    if (VERBS.has(part)) throw new TypeError(`${name}: "${part}" is a verb; a path names resources, and the method says what to do.`);
    if (!isPluralNoun(part, pluralNouns)) throw new TypeError(`${name}: "${part}" must be a plural noun (a collection), as in /books.`);
    segments.push(part);
  }
  return segments;
}

/**
 * A query or path parameter's text as the value its variable's type takes, before GraphQL's
 * own coercion: numbers and booleans from their text, lists from repeated parameters.
 */
export function valueFromText(texts: ReadonlyArray<string>, type: GraphQLInputType): unknown {
  const nullable = getNullableType(type);
  if (isListType(nullable)) return texts.map((text) => scalarFromText(text, nullable.ofType as GraphQLInputType));
  if (texts.length > 1) return new GraphQLError('repeated');
  return scalarFromText(texts[0] as string, type);
}

function scalarFromText(text: string, type: GraphQLInputType): unknown {
  const named = getNamedType(type);
  if (isScalarType(named)) {
    if (named.name === 'Int' || named.name === 'Float') return /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text) ? Number(text) : text;
    if (named.name === 'Boolean') return text === 'true' ? true : text === 'false' ? false : text;
    return text;
  }
  if (isEnumType(named)) return text;
  return text;
}

/** Whether the document writes `@defer` or `@stream` anywhere (whatever their `if`: a route's answer is one body, always). */
function defersOrStreams(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Directive(node) {
      if (node.name.value !== 'defer' && node.name.value !== 'stream') return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}
