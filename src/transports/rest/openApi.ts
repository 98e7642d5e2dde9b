/**
 * The OpenAPI 3.1 document of one version of the resource routes (`/api/v1/openapi.json`),
 * generated from the routes themselves: each route's parameters and body from its operation's
 * variables, its success body from the operation's selection, every schema JSON Schema
 * (2020-12, as OpenAPI 3.1 uses) derived from the GraphQL types, and every status the route
 * can answer with. Made once per version, at start.
 */
import { Kind, getNamedType, getNullableType, isEnumType, isInputObjectType, isListType, isNonNullType, isObjectType, isAbstractType, isScalarType } from 'graphql';
import type { GraphQLInputType, GraphQLOutputType, GraphQLSchema, SelectionSetNode, GraphQLObjectType, GraphQLInterfaceType, FragmentDefinitionNode } from 'graphql';
import type { CompiledRoute, CompiledVersion } from './resourceRoutes.ts';

type JsonSchema = Record<string, unknown>;

const ERROR_REF = { $ref: '#/components/schemas/Error' };

/** What each status means, for the responses of every route. */
const STATUS_TEXT: Record<string, string> = {
  '200': 'The resource.',
  '201': 'Created; Location names the new resource.',
  '204': 'Done; nothing to send back.',
  '304': 'Not modified since the ETag given in If-None-Match.',
  '400': 'A parameter or body that is not what the route takes (code BAD_REQUEST, or the resolver\'s own).',
  '401': 'No acceptable credential (UNAUTHENTICATED; WWW-Authenticate says what to send).',
  '403': 'The caller may not (FORBIDDEN).',
  '404': 'No such resource (NOT_FOUND).',
  '406': 'The Accept header does not allow application/json.',
  '410': 'This API version is retired.',
  '412': 'If-Match names another version of the resource than the current one.',
  '415': 'The body is not application/json.',
  '429': 'Over the rate limit (RATE_LIMITED); Retry-After says when to try again.',
  '500': 'The server failed (INTERNAL_SERVER_ERROR).',
  '503': 'A dependency is unavailable (rate limiter, credential checks).',
};

export function openApiDocument(version: CompiledVersion, schema: GraphQLSchema, prefix: string, title: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of version.routes) {
    const path = `${prefix}/${version.version}${route.path}`;
    paths[path] ??= {};
    (paths[path] as Record<string, unknown>)[route.method.toLowerCase()] = operationOf(route, schema);
  }
  const document: Record<string, unknown> = {
    openapi: '3.1.0',
    info: { title, version: version.version.slice(1) + '.0.0' },
    paths,
    components: {
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: { error: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'string' }, message: { type: 'string' } } } },
        },
      },
    },
  };
  if (version.deprecation !== null) (document['info'] as Record<string, unknown>)['description'] = `Deprecated; retired on ${version.deprecation.sunset.toISOString().slice(0, 10)}.`;
  return document;
}

function operationOf(route: CompiledRoute, schema: GraphQLSchema): Record<string, unknown> {
  const pathParams = route.segments.filter((segment): segment is { param: string } => typeof segment !== 'string').map((segment) => segment.param);
  const parameters: Array<Record<string, unknown>> = [];
  for (const name of pathParams) {
    const variable = route.variables.find((each) => each.name === name);
    parameters.push({ name, in: 'path', required: true, schema: variable === undefined ? { type: 'string' } : inputSchema(variable.type) });
  }
  const rest = route.variables.filter((variable) => !pathParams.includes(variable.name));
  const operation: Record<string, unknown> = {
    operationId: operationId(route),
    parameters,
  };
  const hasBody = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
  if (!hasBody) {
    for (const variable of rest) {
      const parameter: Record<string, unknown> = { name: variable.name, in: 'query', required: variable.required, schema: inputSchema(variable.type) };
      if (variable.defaultValue !== undefined) (parameter['schema'] as JsonSchema)['default'] = variable.defaultValue;
      if (isListType(getNullableType(variable.type))) parameter['explode'] = true;
      parameters.push(parameter);
    }
  } else if (rest.length > 0) {
    const body =
      route.bodyVariable !== null
        ? inputSchema((rest.find((variable) => variable.name === route.bodyVariable) as { type: GraphQLInputType }).type)
        : {
            type: 'object',
            additionalProperties: false,
            properties: Object.fromEntries(rest.map((variable) => [variable.name, inputSchema(variable.type)])),
            required: rest.filter((variable) => variable.required).map((variable) => variable.name),
          };
    operation['requestBody'] = { required: rest.some((variable) => variable.required), content: { 'application/json': { schema: body } } };
  }
  const success = { type: 'object', required: ['data'], properties: { data: resourceSchema(route, schema) } };
  const responses: Record<string, unknown> = {};
  const error = (status: string) => {
    responses[status] = { description: STATUS_TEXT[status], content: { 'application/json': { schema: ERROR_REF } } };
  };
  switch (route.method) {
    case 'GET':
      responses['200'] = { description: STATUS_TEXT['200'], headers: { ETag: { schema: { type: 'string' } } }, content: { 'application/json': { schema: success } } };
      responses['304'] = { description: STATUS_TEXT['304'] };
      break;
    case 'POST':
      responses['201'] = { description: STATUS_TEXT['201'], headers: { Location: { schema: { type: 'string' } } }, content: { 'application/json': { schema: success } } };
      responses['204'] = { description: STATUS_TEXT['204'] };
      break;
    case 'PUT':
    case 'PATCH':
      responses['200'] = { description: STATUS_TEXT['200'], content: { 'application/json': { schema: success } } };
      responses['204'] = { description: STATUS_TEXT['204'] };
      break;
    case 'DELETE':
      responses['204'] = { description: STATUS_TEXT['204'] };
      break;
  }
  for (const status of ['400', '401', '403', '404', '406', '410']) error(status);
  if (route.method !== 'GET') error('412');
  if (hasBody) error('415');
  for (const status of ['429', '500', '503']) error(status);
  operation['responses'] = responses;
  return operation;
}

function operationId(route: CompiledRoute): string {
  const words = route.segments.map((segment) => (typeof segment === 'string' ? segment : `by-${segment.param}`)).join('-');
  const camel = words.replace(/-([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
  return route.method.toLowerCase() + camel.charAt(0).toUpperCase() + camel.slice(1);
}

/** The JSON Schema of a GraphQL input type. */
function inputSchema(type: GraphQLInputType): JsonSchema {
  if (isNonNullType(type)) return inputSchemaOf(type.ofType as GraphQLInputType);
  return nullable(inputSchemaOf(type));
}

function inputSchemaOf(type: GraphQLInputType): JsonSchema {
  if (isListType(type)) return { type: 'array', items: inputSchema(type.ofType as GraphQLInputType) };
  if (isInputObjectType(type)) {
    const fields = Object.values(type.getFields());
    return {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(fields.map((field) => [field.name, inputSchema(field.type)])),
      required: fields.filter((field) => isNonNullType(field.type) && field.defaultValue === undefined).map((field) => field.name),
    };
  }
  return leafSchema(type);
}

function leafSchema(type: GraphQLInputType | GraphQLOutputType): JsonSchema {
  const named = getNamedType(type);
  if (isEnumType(named)) return { type: 'string', enum: named.getValues().map((value) => value.name) };
  if (isScalarType(named)) {
    switch (named.name) {
      case 'Int':
        return { type: 'integer', minimum: -2147483648, maximum: 2147483647 };
      case 'Float':
        return { type: 'number' };
      case 'Boolean':
        return { type: 'boolean' };
      case 'String':
      case 'ID':
        return { type: 'string' };
      default:
        return named.description === null || named.description === undefined ? { type: 'string' } : { type: 'string', description: named.description };
    }
  }
  return {};
}

function nullable(schema: JsonSchema): JsonSchema {
  return { anyOf: [schema, { type: 'null' }] };
}

/** The JSON Schema of the route's resource: the selection of its root field (or of the sub-collection's field). */
function resourceSchema(route: CompiledRoute, schema: GraphQLSchema): JsonSchema {
  const rootType = route.operation.operation === 'query' ? schema.getQueryType() : schema.getMutationType();
  const root = route.operation.selectionSet.selections[0];
  if (rootType == null || root === undefined || root.kind !== Kind.FIELD) return {};
  const fragments = new Map(
    route.document.definitions.filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION).map((fragment) => [fragment.name.value, fragment]),
  );
  const field = rootType.getFields()[root.name.value];
  if (field === undefined) return {};
  // The resource itself is never null in a 200 (null is a 404).
  if (route.subField === null) return outputSchemaOf(getNullableType(field.type) as GraphQLOutputType, root.selectionSet, schema, fragments);
  const owner = getNamedType(field.type) as GraphQLObjectType;
  const under = root.selectionSet?.selections[0];
  if (under === undefined || under.kind !== Kind.FIELD) return {};
  const subField = owner.getFields()[under.name.value];
  return subField === undefined ? {} : outputSchemaOf(getNullableType(subField.type) as GraphQLOutputType, under.selectionSet, schema, fragments);
}

function outputSchema(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined, schema: GraphQLSchema, fragments: Map<string, FragmentDefinitionNode>): JsonSchema {
  if (isNonNullType(type)) return outputSchemaOf(type.ofType as GraphQLOutputType, selectionSet, schema, fragments);
  return nullable(outputSchemaOf(type, selectionSet, schema, fragments));
}

function outputSchemaOf(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined, schema: GraphQLSchema, fragments: Map<string, FragmentDefinitionNode>): JsonSchema {
  if (isListType(type)) return { type: 'array', items: outputSchema(type.ofType as GraphQLOutputType, selectionSet, schema, fragments) };
  if ((isObjectType(type) || isAbstractType(type)) && selectionSet !== undefined) {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    collect(type as GraphQLObjectType | GraphQLInterfaceType, selectionSet, true);
    return { type: 'object', properties, required };

    function collect(parent: GraphQLObjectType | GraphQLInterfaceType, selections: SelectionSetNode, always: boolean): void {
      for (const selection of selections.selections) {
        if (selection.kind === Kind.FIELD) {
          const key = selection.alias?.value ?? selection.name.value;
          if (selection.name.value === '__typename') {
            properties[key] = { type: 'string' };
          } else if ('getFields' in parent) {
            const field = parent.getFields()[selection.name.value];
            if (field !== undefined) properties[key] = outputSchema(field.type, selection.selectionSet, schema, fragments);
          }
          if (always && (selection.directives ?? []).length === 0 && !required.includes(key)) required.push(key);
        } else {
          const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? fragments.get(selection.name.value) : selection;
          if (fragment === undefined) continue;
          const condition = fragment.typeCondition === undefined ? parent : (schema.getType(fragment.typeCondition.name.value) as GraphQLObjectType | undefined);
          if (condition !== undefined) collect(condition, fragment.selectionSet, always && condition === parent);
        }
      }
    }
  }
  return leafSchema(type);
}
