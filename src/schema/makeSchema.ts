/**
 * makeSchema: SDL + a resolver map (the shape Apollo Server and GraphQL Yoga users know)
 * -> an executable graphql-js `GraphQLSchema` whose fields carry their `resolve` functions.
 *
 * graphql-js builds the type system from SDL; we then rebuild every named type once with the
 * user's functions folded into its config. Rebuilding (rather than patching the built types)
 * keeps graphql-js's private caches honest: an enum's internal values, for instance, are part
 * of its config, so its serialize/parse lookups are built from the right values.
 */
import {
  GraphQLDirective,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLUnionType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  isUnionType,
  valueFromAST,
} from 'graphql';
import { COST_DIRECTIVES_SDL } from '../analysis/costDirectives.ts';
import { buildSdlSchema, sdlDocument } from './sdlSchema.ts';
import { withDirectiveDefinitions } from '../language/schemaDirectives.ts';
import {
  DEFER_DIRECTIVE,
  GRAPHQL_17_SCALAR_FUNCTIONS,
  GRAPHQL_VERSION,
  SCALAR_FUNCTIONS,
  STREAM_DIRECTIVE,
  enableIncrementalDelivery,
} from '../language/graphqlCompat.ts';
import { AUTH_DIRECTIVE_SDL, checkAuthorization } from '../security/rules.ts';
import type { AuthorizationConfig, CheckedAuthorization } from '../security/rules.ts';
import type {
  ConstValueNode,
  DocumentNode,
  GraphQLArgumentConfig,
  GraphQLFieldConfig,
  GraphQLResolveInfo,
  GraphQLInputFieldConfig,
  GraphQLIsTypeOfFn,
  GraphQLNamedType,
  GraphQLType,
  GraphQLTypeResolver,
  GraphQLScalarLiteralParser,
  GraphQLScalarSerializer,
  GraphQLScalarValueParser,
} from 'graphql';
import { describe } from '../jsutils/describe.ts';

/**
 * A field's resolver as makeSchema's users write it. A resolver written without annotations,
 * `(parent, args, context, info) => …`, gets these types (under `strict` too, where it used to be
 * refused for implicit `any`s): `info` is graphql-js's `GraphQLResolveInfo`, `args` a record of
 * the field's arguments; `parent` and `context` stay `any`, as in graphql-js's own field
 * configs and Apollo's resolver maps, since makeSchema cannot know them (`unknown` would refuse
 * every un-annotated resolver that reads them, the documentation's among them). A resolver whose
 * parameters are annotated (`(book: Book, args: { id: string }, context: Context)`) is taken as
 * it is: the type is a method's, whose parameters TypeScript compares both ways.
 */
export type FieldResolver = {
  resolver(parent: any, args: Record<string, any>, context: any, info: GraphQLResolveInfo): unknown;
}['resolver'];

/** A field's resolver: the function itself, or an object carrying it (Apollo's long form). */
export type FieldResolverConfig = FieldResolver | { resolve?: FieldResolver; subscribe?: FieldResolver };

/**
 * Resolvers of an object or interface type, plus its type-resolution hooks. (An intersection
 * rather than one type with an index signature: the hooks' types need not fit the fields', so
 * a field's resolver gets its parameter types from FieldResolver alone.)
 */
export type TypeResolvers = {
  __resolveType?: GraphQLTypeResolver<any, any>;
  __isTypeOf?: GraphQLIsTypeOfFn<any, any>;
} & { [fieldName: string]: FieldResolverConfig | undefined };

/**
 * A custom scalar given without constructing a `GraphQLScalarType`. graphql 17 also reads its new
 * names (`coerceOutputValue`, `coerceInputValue`, `coerceInputLiteral`, `valueToLiteral`); under
 * graphql 16 they are refused, as 16 would ignore them.
 */
export interface ScalarFunctions {
  serialize?: GraphQLScalarSerializer<unknown>;
  parseValue?: GraphQLScalarValueParser<unknown>;
  parseLiteral?: GraphQLScalarLiteralParser<unknown>;
  coerceOutputValue?: (outputValue: unknown) => unknown;
  coerceInputValue?: (inputValue: unknown) => unknown;
  coerceInputLiteral?: (valueNode: ConstValueNode) => unknown;
  valueToLiteral?: (value: unknown) => ConstValueNode | undefined;
  specifiedByURL?: string;
}

/**
 * Enum internal values: `{ DOG: 'd' }` makes resolvers see and return `'d'` for `DOG`. (Any
 * value, written so that it is not `unknown`: in the union of Resolvers, `unknown` would absorb
 * the function types and leave resolvers' parameters without types.)
 */
export type EnumInternalValues = Record<string, {} | null | undefined>;

export type Resolvers = Record<string, TypeResolvers | GraphQLScalarType | ScalarFunctions | EnumInternalValues>;

export interface MakeSchemaConfig extends AuthorizationConfig {
  typeDefs: string | DocumentNode | ReadonlyArray<string | DocumentNode>;
  resolvers?: Resolvers | ReadonlyArray<Resolvers>;
  /**
   * Declare `@defer` and `@stream` (incremental delivery: `experimentalExecuteIncrementally`,
   * `legacyExecuteIncrementally`), as graphql 17 defines them. Without them, documents that use
   * them fail validation ("Unknown directive"). Default true; `false` declares neither (they
   * then do not appear in introspection, and graphql 17's own `execute` accepts the schema: it
   * refuses any schema that declares them unless incremental delivery was enabled on purpose).
   */
  incremental?: boolean;
}

/**
 * Builds an executable schema; throws a `TypeError` naming any resolver the SDL does not
 * declare, and any authorization rule that is wrong (security/rules.ts).
 */
export function makeSchema(config: MakeSchemaConfig): GraphQLSchema {
  // The engine's directives (@cost, @listSize, @auth) may be used without being declared.
  const document = withDirectiveDefinitions(sdlDocument(config.typeDefs), COST_DIRECTIVES_SDL + AUTH_DIRECTIVE_SDL);
  const base = buildSdlSchema(document);
  const resolvers = mergeResolverMaps(config.resolvers);
  checkResolversMatchSchema(base, resolvers);
  const authorization = checkAuthorization(base, config);
  const schema = rebuildSchema(base, resolvers, authorization);
  return config.incremental !== false ? withIncrementalDirectives(schema) : schema;
}


/**
 * The schema with `@defer` and `@stream` declared (those the SDL does not declare itself), marked
 * as one whose incremental delivery was enabled on purpose (graphqlCompat.ts): under graphql 17,
 * `execute` refuses other schemas that declare them.
 */
function withIncrementalDirectives(schema: GraphQLSchema): GraphQLSchema {
  const missing = [DEFER_DIRECTIVE, STREAM_DIRECTIVE].filter((directive) => schema.getDirective(directive.name) == null);
  const complete = missing.length === 0 ? schema : new GraphQLSchema({ ...schema.toConfig(), directives: [...schema.getDirectives(), ...missing] });
  enableIncrementalDelivery(complete);
  return complete;
}

/** Several resolver maps (one per module, as users split them) merge type by type. */
function mergeResolverMaps(input: MakeSchemaConfig['resolvers']): Map<string, unknown> {
  const merged = new Map<string, unknown>();
  const maps = input === undefined ? [] : Array.isArray(input) ? input : [input];
  for (const map of maps) {
    for (const [typeName, value] of Object.entries(map as Resolvers)) {
      const previous = merged.get(typeName);
      const mergeable = (v: unknown) => isPlainObject(v) && !(v instanceof GraphQLScalarType);
      merged.set(
        typeName,
        previous !== undefined && mergeable(previous) && mergeable(value)
          ? { ...(previous as object), ...(value as object) }
          : value,
      );
    }
  }
  return merged;
}

/** A resolver for something the SDL lacks is almost always a typo: fail at build time, by name. */
function checkResolversMatchSchema(schema: GraphQLSchema, resolvers: Map<string, unknown>): void {
  for (const [typeName, value] of resolvers) {
    const type = schema.getType(typeName);
    if (type === undefined || isIntrospectionType(type)) {
      throw new TypeError(`makeSchema: resolvers define type "${typeName}", which is not in the schema.`);
    }
    if (isScalarType(type)) {
      checkScalarFunctions(type, value);
      continue;
    }
    if (!isPlainObject(value)) {
      throw new TypeError(`makeSchema: resolvers for type "${typeName}" must be an object, got ${describe(value)}.`);
    }
    if (isEnumType(type)) {
      for (const valueName of Object.keys(value)) {
        if (type.getValue(valueName) === undefined) {
          throw new TypeError(`makeSchema: resolvers define enum value "${typeName}.${valueName}", which is not in the schema.`);
        }
      }
      continue;
    }
    if (isInputObjectType(type)) {
      throw new TypeError(`makeSchema: input object type "${typeName}" cannot have resolvers.`);
    }
    checkTypeResolvers(type, value);
  }
}

/** A custom scalar's functions: a GraphQLScalarType, or an object of the functions this graphql major reads. */
function checkScalarFunctions(type: GraphQLScalarType, value: unknown): void {
  const typeName = type.name;
  if (isSpecifiedScalarType(type)) {
    throw new TypeError(`makeSchema: the built-in scalar "${typeName}" cannot be given resolvers.`);
  }
  if (value instanceof GraphQLScalarType) return;
  if (!isPlainObject(value)) {
    throw new TypeError(
      `makeSchema: scalar "${typeName}" expects a GraphQLScalarType or { serialize, parseValue, parseLiteral }, got ${describe(value)}.`,
    );
  }
  for (const key of Object.keys(value)) {
    if (SCALAR_FUNCTIONS.includes(key)) continue;
    if (GRAPHQL_17_SCALAR_FUNCTIONS.includes(key)) {
      throw new TypeError(
        `makeSchema: scalar "${typeName}" got "${key}", which only graphql 17 reads; this project has graphql ${GRAPHQL_VERSION}: use ${SCALAR_FUNCTIONS.slice(0, 3).join(', ')}.`,
      );
    }
    throw new TypeError(`makeSchema: scalar "${typeName}" got "${key}"; expected only ${SCALAR_FUNCTIONS.join(', ')}.`);
  }
}

/** An object, interface or union type's resolvers: its fields' resolvers, `__resolveType`, `__isTypeOf`. */
function checkTypeResolvers(type: GraphQLNamedType, value: Record<string, unknown>): void {
  const typeName = type.name;
  const fields = isObjectType(type) || isInterfaceType(type) ? type.getFields() : {};
  for (const [key, resolver] of Object.entries(value)) {
    if (key === '__resolveType') {
      if (!isInterfaceType(type) && !isUnionType(type)) {
        throw new TypeError(`makeSchema: "${typeName}.__resolveType" is only allowed on interfaces and unions.`);
      }
      expectFunction(`${typeName}.__resolveType`, resolver);
    } else if (key === '__isTypeOf') {
      if (!isObjectType(type)) {
        throw new TypeError(`makeSchema: "${typeName}.__isTypeOf" is only allowed on object types.`);
      }
      expectFunction(`${typeName}.__isTypeOf`, resolver);
    } else if (fields[key] === undefined) {
      throw new TypeError(`makeSchema: resolvers define field "${typeName}.${key}", which is not in the schema.`);
    } else if (typeof resolver !== 'function' && !isPlainObject(resolver)) {
      throw new TypeError(
        `makeSchema: resolver "${typeName}.${key}" must be a function or { resolve }, got ${describe(resolver)}.`,
      );
    }
  }
}

/**
 * Recreates every named type with the resolvers folded in, rewiring references to the new
 * types; authorization rules go into the `extensions.auth` of their types and fields.
 */
function rebuildSchema(base: GraphQLSchema, resolvers: Map<string, unknown>, authorization: CheckedAuthorization): GraphQLSchema {
  return new SchemaRebuilder(resolvers, authorization).rebuild(base);
}

/**
 * One rebuild. The new types reference each other through `rebuilt`: fields, interfaces and
 * union members are thunks, read once every type exists, so each reference finds the new type.
 */
class SchemaRebuilder {
  private readonly rebuilt = new Map<string, GraphQLNamedType>();
  private readonly resolvers: Map<string, unknown>;
  private readonly authorization: CheckedAuthorization;

  constructor(resolvers: Map<string, unknown>, authorization: CheckedAuthorization) {
    this.resolvers = resolvers;
    this.authorization = authorization;
  }

  rebuild(base: GraphQLSchema): GraphQLSchema {
    for (const type of Object.values(base.getTypeMap())) {
      if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
      this.rebuilt.set(type.name, this.rebuildType(type, this.resolvers.get(type.name) as Record<string, unknown> | undefined));
    }
    const root = (type: GraphQLObjectType | null | undefined) => (type ? (this.named(type) as GraphQLObjectType) : undefined);
    const config = base.toConfig();
    const schemaRule = this.authorization.schema;
    return new GraphQLSchema({
      ...config,
      extensions: schemaRule === null ? config.extensions : { ...config.extensions, auth: schemaRule },
      query: root(config.query),
      mutation: root(config.mutation),
      subscription: root(config.subscription),
      types: [...this.rebuilt.values()],
      directives: config.directives.map((directive) =>
        directive instanceof GraphQLDirective && !isBuiltInDirective(directive.name)
          ? new GraphQLDirective({ ...directive.toConfig(), args: this.wireArgs(directive.toConfig().args) })
          : directive,
      ),
    });
  }

  /** The type again, with `own` (the resolvers given for it) folded in. */
  private rebuildType(type: GraphQLNamedType, own: Record<string, unknown> | undefined): GraphQLNamedType {
    if (isObjectType(type)) {
      const config = type.toConfig();
      return new GraphQLObjectType({
        ...config,
        extensions: this.withRule(config.extensions, type.name),
        isTypeOf: (own?.__isTypeOf as GraphQLIsTypeOfFn<unknown, unknown> | undefined) ?? config.isTypeOf,
        interfaces: () => config.interfaces.map((each) => this.wire(each)),
        fields: () => this.wireFields(type.name, config.fields),
      });
    }
    if (isInterfaceType(type)) {
      const config = type.toConfig();
      return new GraphQLInterfaceType({
        ...config,
        extensions: this.withRule(config.extensions, type.name),
        resolveType: (own?.__resolveType as GraphQLTypeResolver<unknown, unknown> | undefined) ?? config.resolveType,
        interfaces: () => config.interfaces.map((each) => this.wire(each)),
        fields: () => this.wireFields(type.name, config.fields),
      });
    }
    if (isUnionType(type)) {
      const config = type.toConfig();
      return new GraphQLUnionType({
        ...config,
        resolveType: (own?.__resolveType as GraphQLTypeResolver<unknown, unknown> | undefined) ?? config.resolveType,
        types: () => config.types.map((each) => this.wire(each)),
      });
    }
    if (isInputObjectType(type)) {
      const config = type.toConfig();
      return new GraphQLInputObjectType({ ...config, fields: () => mapValues(config.fields, (field) => this.withDefault(field)) });
    }
    if (isEnumType(type)) {
      const config = type.toConfig();
      const values = mapValues(config.values, (value, valueName) => (own !== undefined && Object.hasOwn(own, valueName) ? { ...value, value: own[valueName] } : value));
      return new GraphQLEnumType({ ...config, values });
    }
    return withScalarFunctions(type as GraphQLScalarType, own);
  }

  private named(type: GraphQLNamedType): GraphQLNamedType {
    return this.rebuilt.get(type.name) ?? type;
  }

  /** The same type, wrappers kept, its named type replaced by the rebuilt one. */
  private wire<T extends GraphQLType>(type: T): T {
    if (isNonNullType(type)) return new GraphQLNonNull(this.wire(type.ofType)) as T;
    if (isListType(type)) return new GraphQLList(this.wire(type.ofType)) as T;
    return this.named(type as GraphQLNamedType) as T;
  }

  /**
   * Defaults were coerced when graphql-js first built the types, before enum internal values
   * and custom scalar parsers existed: coerce them again from the SDL, against the new types.
   */
  private withDefault<C extends GraphQLArgumentConfig | GraphQLInputFieldConfig>(config: C): C {
    const type = this.wire(config.type);
    const literal = config.astNode?.defaultValue;
    return literal === undefined ? { ...config, type } : { ...config, type, defaultValue: valueFromAST(literal, type) };
  }

  private withRule<E>(extensions: E, coordinate: string): E {
    const rule = this.authorization.rules.get(coordinate);
    return rule === undefined ? extensions : { ...extensions, auth: rule };
  }

  private wireArgs(args: Record<string, GraphQLArgumentConfig> | undefined): Record<string, GraphQLArgumentConfig> {
    return mapValues(args ?? {}, (arg) => this.withDefault(arg));
  }

  private wireFields(typeName: string, fields: Record<string, GraphQLFieldConfig<unknown, unknown>>): Record<string, GraphQLFieldConfig<unknown, unknown>> {
    const typeResolvers = (this.resolvers.get(typeName) ?? {}) as TypeResolvers;
    return mapValues(fields, (field, fieldName) => {
      const given = typeResolvers[fieldName] as FieldResolverConfig | undefined;
      const resolverParts = typeof given === 'function' ? { resolve: given } : (given ?? {});
      const extensions = this.withRule(field.extensions, `${typeName}.${fieldName}`);
      return { ...field, ...resolverParts, extensions, type: this.wire(field.type), args: this.wireArgs(field.args) };
    });
  }
}

/**
 * A scalar of the SDL with the functions given for it. The SDL's scalar holds only graphql's
 * defaults, which would win over the functions given (graphql 17 derives coerceOutputValue and
 * the others from them at construction): keep its name, description and AST, and take every
 * function from what was given.
 */
function withScalarFunctions(type: GraphQLScalarType, own: unknown): GraphQLScalarType {
  const { name, description, astNode, extensionASTNodes, extensions, specifiedByURL } = type.toConfig();
  const functions = own instanceof GraphQLScalarType ? own.toConfig() : ((own ?? {}) as ScalarFunctions);
  return new GraphQLScalarType({
    description,
    astNode,
    extensionASTNodes,
    extensions,
    specifiedByURL,
    ...withInputParser(pickDefined(functions as Record<string, unknown>, SCALAR_FUNCTIONS)),
    name,
  });
}

/**
 * graphql-js wants a literal parser to come with a value parser; a scalar given only the former
 * keeps graphql's default (the value as it is) for the latter, as the SDL's scalar had.
 */
function withInputParser(functions: Record<string, unknown>): Record<string, unknown> {
  const identity = (value: unknown) => value;
  if (functions['parseLiteral'] !== undefined && functions['parseValue'] === undefined) return { ...functions, parseValue: identity };
  if (functions['coerceInputLiteral'] !== undefined && functions['coerceInputValue'] === undefined) return { ...functions, coerceInputValue: identity };
  return functions;
}

function isBuiltInDirective(name: string): boolean {
  return name === 'skip' || name === 'include' || name === 'deprecated' || name === 'specifiedBy' || name === 'oneOf';
}

function mapValues<T, R>(record: Record<string, T>, fn: (value: T, key: string) => R): Record<string, R> {
  const result: Record<string, R> = {};
  for (const key of Object.keys(record)) {
    result[key] = fn(record[key] as T, key);
  }
  return result;
}

function pickDefined<T extends object>(source: T, keys: ReadonlyArray<keyof T>): Partial<T> {
  const result: Partial<T> = {};
  for (const key of keys) {
    if (source[key] !== undefined) result[key] = source[key];
  }
  return result;
}

function expectFunction(name: string, value: unknown): void {
  if (typeof value !== 'function') {
    throw new TypeError(`makeSchema: "${name}" must be a function, got ${describe(value)}.`);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
