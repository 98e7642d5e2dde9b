/**
 * Authorization rules: who may use an object type, an interface or a field.
 *
 * A rule is written in the SDL with `@auth(...)` or in code (`makeSchema({ permissions })`),
 * checked when the schema is built (unknown roles, rules that let nobody in, mutations without
 * a rule), and kept on the built schema's `extensions.auth` (schema elements from makeSchema) or
 * read from the `@auth` directive of any other schema built from SDL. access.ts applies them.
 *
 * A rule lets a caller in when:
 *   public: true                  anyone, the anonymous caller included
 *   roles: [a, b]                 the caller has a or b, or a role that includes one of them
 *   scopes: [x, y]                the caller's credential carries x and y
 *   (neither roles nor scopes)    any authenticated caller
 *   mfa: true                     and the caller signed in with multi-factor authentication
 * Roles may include other roles (`roles: { admin: ['editor'], editor: ['reader'], reader: [] }`):
 * an admin passes every rule that asks for an editor or a reader. That keeps each rule naming the
 * least role that needs the access (least privilege) without listing every role above it.
 */
import { GraphQLSchema, Kind, isInterfaceType, isObjectType } from 'graphql';
import type { ConstValueNode, GraphQLField, GraphQLInterfaceType, GraphQLNamedType, GraphQLObjectType } from 'graphql';
import { describe } from '../jsutils/describe.ts';
import { findDirective } from '../language/schemaDirectives.ts';
import type { Annotated } from '../language/schemaDirectives.ts';

/** The definition makeSchema adds when an SDL uses `@auth` without declaring it. */
export const AUTH_DIRECTIVE_SDL = /* GraphQL */ `
  "Who may use an object type, an interface or a field: a caller with any of the roles and all of the scopes, signed in with multi-factor authentication when mfa is true; anyone when public is true. With no argument: any authenticated caller."
  directive @auth(roles: [String!], scopes: [String!], mfa: Boolean = false, public: Boolean = false) on OBJECT | INTERFACE | FIELD_DEFINITION
`;

export interface AuthRule {
  /** Any one of these roles (or a role that includes it) is enough. */
  readonly roles?: ReadonlyArray<string>;
  /** Every one of these scopes is needed. */
  readonly scopes?: ReadonlyArray<string>;
  /** Multi-factor sign-in is needed too. */
  readonly mfa?: boolean;
  /** Anyone may: the explicit "no restriction" that strict mutations ask for. */
  readonly public?: boolean;
}

/** Rules in code, by schema coordinate: `'Book'` (a type) or `'Mutation.addReview'` (a field). */
export type Permissions = Readonly<Record<string, AuthRule>>;

/** The roles there are: a list, or each role with the roles it includes. */
export type RoleDeclaration = ReadonlyArray<string> | Readonly<Record<string, ReadonlyArray<string>>>;

/** What makeSchema takes for authorization. */
export interface AuthorizationConfig {
  roles?: RoleDeclaration;
  permissions?: Permissions;
  /**
   * Every Mutation field must have a rule (its own or the Mutation type's); building a schema
   * with one that has none fails. Default: on whenever the schema uses authorization at all
   * (declares roles, or has a rule anywhere).
   */
  strictMutations?: boolean;
}

/** What the schema's `extensions.auth` holds: each role with every role it includes, itself too. */
export interface SchemaAuthorization {
  readonly roles: ReadonlyMap<string, ReadonlySet<string>>;
}

const directiveRules = new WeakMap<object, AuthRule | null>();

/**
 * The rule on a type or field: makeSchema's (in `extensions.auth`), else, when the schema's
 * `@auth` is ours (see usesOurAuthDirective), its `@auth` directive; undefined when it has none.
 */
export function authRuleOf(element: Annotated & { readonly extensions?: unknown }, readsDirective: boolean): AuthRule | undefined {
  const fromExtensions = (element.extensions as { auth?: AuthRule } | null | undefined)?.auth;
  if (fromExtensions !== undefined || !readsDirective) return fromExtensions;
  let rule = directiveRules.get(element);
  if (rule === undefined) {
    rule = ruleFromDirective(element) ?? null;
    directiveRules.set(element, rule);
  }
  return rule ?? undefined;
}

const AUTH_ARGUMENTS = new Set(['roles', 'scopes', 'mfa', 'public']);

/**
 * Whether the schema's `@auth` directive is this one (its arguments are among ours). A schema
 * with an `@auth` of its own, from another library, keeps its meaning: it is not read as rules.
 */
export function usesOurAuthDirective(schema: GraphQLSchema): boolean {
  const definition = schema.getDirective('auth');
  return definition != null && definition.args.every((argument) => AUTH_ARGUMENTS.has(argument.name));
}

/** The schema's declared roles, with what each includes; null when it declares none (every role stands alone). */
export function roleModelOf(schema: GraphQLSchema): ReadonlyMap<string, ReadonlySet<string>> | null {
  return (schema.extensions as { auth?: SchemaAuthorization } | undefined)?.auth?.roles ?? null;
}

function ruleFromDirective(element: Annotated): AuthRule | undefined {
  const directive = findDirective(element, 'auth');
  if (directive === undefined) return undefined;
  const argument = (name: string) => directive.arguments?.find((node) => node.name.value === name)?.value;
  return {
    roles: stringsOf(argument('roles')),
    scopes: stringsOf(argument('scopes')),
    mfa: booleanOf(argument('mfa')),
    public: booleanOf(argument('public')),
  };
}

function stringsOf(value: ConstValueNode | undefined): string[] | undefined {
  if (value === undefined || value.kind === Kind.NULL) return undefined;
  if (value.kind === Kind.STRING) return [value.value];
  if (value.kind === Kind.LIST) return value.values.flatMap((item) => (item.kind === Kind.STRING ? [item.value] : []));
  return undefined;
}

function booleanOf(value: ConstValueNode | undefined): boolean {
  return value?.kind === Kind.BOOLEAN && value.value;
}

/** The checked rules of a schema being built, for makeSchema to write into the new types. */
export interface CheckedAuthorization {
  /** By coordinate (`Type` or `Type.field`). */
  readonly rules: ReadonlyMap<string, AuthRule>;
  /** For the schema's `extensions.auth`; null when no roles are declared. */
  readonly schema: SchemaAuthorization | null;
}

/**
 * Checks a schema's rules (from its SDL and from `permissions`) against its declared roles, and
 * that every mutation has a rule when mutations are strict; throws a TypeError naming what is
 * wrong. The schema is the one graphql-js built from the SDL, before resolvers are added.
 */
export function checkAuthorization(schema: GraphQLSchema, config: AuthorizationConfig): CheckedAuthorization {
  const readsDirective = usesOurAuthDirective(schema);
  const roles = config.roles === undefined ? null : roleModel(config.roles);
  const checked = new Map<string, AuthRule>();
  const add = (coordinate: string, rule: unknown, source: string) => {
    if (checked.has(coordinate)) {
      throw new TypeError(`makeSchema: ${coordinate} has an @auth rule in the SDL and one in permissions; keep one.`);
    }
    checked.set(coordinate, checkRule(rule, `${source} of ${coordinate}`, roles));
  };

  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    const typeRule = readsDirective ? ruleFromDirective(type) : undefined;
    if (typeRule !== undefined) add(type.name, typeRule, 'the @auth rule');
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) {
        const fieldRule = readsDirective ? ruleFromDirective(field) : undefined;
        if (fieldRule !== undefined) add(`${type.name}.${field.name}`, fieldRule, 'the @auth rule');
      }
    }
  }
  const permissions = config.permissions ?? {};
  if (permissions === null || typeof permissions !== 'object') {
    throw new TypeError(`makeSchema: permissions must be an object of rules by coordinate ('Type' or 'Type.field'), got ${describe(permissions)}.`);
  }
  for (const [coordinate, rule] of Object.entries(permissions)) {
    checkCoordinate(schema, coordinate);
    add(coordinate, rule, 'the permission');
  }

  const strict = config.strictMutations ?? (roles !== null || checked.size > 0);
  const mutation = schema.getMutationType();
  if (strict && mutation && !checked.has(mutation.name)) {
    const unguarded = Object.keys(mutation.getFields()).filter((field) => !checked.has(`${mutation.name}.${field}`));
    if (unguarded.length > 0) {
      throw new TypeError(
        `makeSchema: mutation field${unguarded.length > 1 ? 's' : ''} ${unguarded.map((field) => `${mutation.name}.${field}`).join(', ')} ` +
          `ha${unguarded.length > 1 ? 've' : 's'} no authorization rule. Every mutation must say who may run it: ` +
          `@auth(roles: [...]) or @auth(public: true) in the SDL, or an entry in permissions (or set strictMutations: false).`,
      );
    }
  }
  return { rules: checked, schema: roles === null ? null : { roles } };
}

/** A type or field coordinate of `permissions` must name something the schema has. */
function checkCoordinate(schema: GraphQLSchema, coordinate: string): void {
  const [typeName = '', fieldName, extra] = coordinate.split('.');
  if (typeName.startsWith('__')) {
    throw new TypeError(
      `makeSchema: permissions name "${coordinate}", an introspection type; rules cannot go there. Limit introspection with the server's introspection option ({ roles }).`,
    );
  }
  const type: GraphQLNamedType | undefined = schema.getType(typeName);
  if (extra !== undefined || type === undefined || (!isObjectType(type) && !isInterfaceType(type))) {
    throw new TypeError(
      `makeSchema: permissions name "${coordinate}", which is not an object type, an interface or one of their fields in the schema.`,
    );
  }
  if (fieldName !== undefined && (type as GraphQLObjectType | GraphQLInterfaceType).getFields()[fieldName] === undefined) {
    throw new TypeError(`makeSchema: permissions name "${coordinate}", but ${typeName} has no field "${fieldName}".`);
  }
}

const RULE_KEYS = new Set(['roles', 'scopes', 'mfa', 'public']);

function checkRule(rule: unknown, where: string, roles: ReadonlyMap<string, ReadonlySet<string>> | null): AuthRule {
  if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) {
    throw new TypeError(`makeSchema: ${where} must be an object like { roles: ['editor'] }, got ${describe(rule)}.`);
  }
  for (const key of Object.keys(rule)) {
    if (!RULE_KEYS.has(key)) throw new TypeError(`makeSchema: ${where} has "${key}"; a rule has only roles, scopes, mfa and public.`);
  }
  const { roles: ruleRoles, scopes, mfa, public: isPublic } = rule as AuthRule;
  for (const [name, list] of [['roles', ruleRoles], ['scopes', scopes]] as const) {
    if (list !== undefined && (!Array.isArray(list) || list.some((item) => typeof item !== 'string' || item === ''))) {
      throw new TypeError(`makeSchema: ${where} has ${name} that are not a list of non-empty strings.`);
    }
  }
  for (const [name, flag] of [['mfa', mfa], ['public', isPublic]] as const) {
    if (flag !== undefined && typeof flag !== 'boolean') throw new TypeError(`makeSchema: ${where} has ${name} that is not a boolean.`);
  }
  if (isPublic === true && ((ruleRoles?.length ?? 0) > 0 || (scopes?.length ?? 0) > 0 || mfa === true)) {
    throw new TypeError(`makeSchema: ${where} is public and restricted at once; public: true stands alone.`);
  }
  if (ruleRoles !== undefined && ruleRoles.length === 0) {
    throw new TypeError(`makeSchema: ${where} has roles: [], which lets nobody in; name the roles, or leave roles out for any authenticated caller.`);
  }
  for (const role of ruleRoles ?? []) {
    if (roles === null) {
      throw new TypeError(`makeSchema: ${where} names the role "${role}", but the schema declares no roles; list them in makeSchema({ roles }).`);
    }
    if (!roles.has(role)) {
      throw new TypeError(`makeSchema: ${where} names the role "${role}", which is not declared; the roles are ${[...roles.keys()].join(', ')}.`);
    }
  }
  const normalized: AuthRule = {
    roles: ruleRoles === undefined ? undefined : [...ruleRoles],
    scopes: scopes === undefined ? undefined : [...scopes],
    mfa: mfa === true,
    public: isPublic === true,
  };
  return Object.freeze(normalized);
}

/** Each declared role with every role it includes, directly or through others, itself too. */
function roleModel(declaration: RoleDeclaration): ReadonlyMap<string, ReadonlySet<string>> {
  const direct = new Map<string, ReadonlyArray<string>>();
  if (Array.isArray(declaration)) {
    for (const role of declaration) direct.set(checkRoleName(role), []);
  } else if (declaration !== null && typeof declaration === 'object') {
    for (const [role, included] of Object.entries(declaration as Record<string, ReadonlyArray<string>>)) {
      if (!Array.isArray(included)) throw new TypeError(`makeSchema: roles.${role} must list the roles it includes, got ${describe(included)}.`);
      direct.set(checkRoleName(role), included);
    }
  } else {
    throw new TypeError(`makeSchema: roles must be a list of role names or an object of roles and the roles each includes, got ${describe(declaration)}.`);
  }
  const model = new Map<string, ReadonlySet<string>>();
  for (const role of direct.keys()) {
    const closure = new Set<string>([role]);
    const pending = [role];
    while (pending.length > 0) {
      for (const included of direct.get(pending.pop() as string) ?? []) {
        if (!direct.has(included)) throw new TypeError(`makeSchema: the role "${role}" includes "${included}", which is not declared.`);
        if (!closure.has(included)) {
          closure.add(included);
          pending.push(included);
        }
      }
    }
    model.set(role, closure);
  }
  return model;
}

function checkRoleName(role: unknown): string {
  if (typeof role !== 'string' || role === '') throw new TypeError(`makeSchema: a role name must be a non-empty string, got ${describe(role)}.`);
  return role;
}

/**
 * The rules that apply to a field of an object type, all of which must pass, in the order their
 * failures are reported: the field's own; those its interfaces declare on it; its type's and
 * its interfaces'; and the rule of the type it returns. Adding a rule never loosens another
 * (least privilege), with one explicit exception: a field's own `@auth(public: true)` exempts it
 * from its type's rules, which is how one field of a guarded type (`login` on an admin-only
 * `Mutation`) is opened. The rules its interfaces declare on it, and its return type's, still apply.
 */
export function rulesOfField(
  parentType: GraphQLObjectType,
  field: GraphQLField<unknown, unknown>,
  returnType: GraphQLNamedType,
  readsDirective: boolean,
): Array<{ coordinate: string; rule: AuthRule }> {
  const found: Array<{ coordinate: string; rule: AuthRule }> = [];
  const add = (coordinate: string, element: Annotated & { readonly extensions?: unknown }) => {
    const rule = authRuleOf(element, readsDirective);
    if (rule !== undefined) found.push({ coordinate, rule });
  };
  add(`${parentType.name}.${field.name}`, field);
  const openedByOwnRule = found[0]?.rule.public === true;
  for (const parentInterface of parentType.getInterfaces()) {
    const declared = parentInterface.getFields()[field.name];
    if (declared !== undefined) add(`${parentInterface.name}.${field.name}`, declared);
  }
  if (!openedByOwnRule) {
    add(parentType.name, parentType);
    for (const parentInterface of parentType.getInterfaces()) add(parentInterface.name, parentInterface);
  }
  if (isObjectType(returnType) || isInterfaceType(returnType)) add(returnType.name, returnType);
  return found;
}
