/**
 * Field-level access: the rules of rules.ts applied to one caller.
 *
 * What a caller may do depends only on what they were granted (effective roles, scopes,
 * multi-factor sign-in, whether they are signed in at all), not on who they are. So callers
 * with the same grants share one `GrantAccess`, and the executor plans each operation once per
 * GrantAccess (execution/plan.ts `FieldAccess`): a field's verdict is decided when its plan is
 * made, and an allowed field costs nothing more at run time than it did without authorization.
 * A denied field is planned as one that fails with FORBIDDEN (or MFA_REQUIRED) at its path,
 * its resolver never called, the null propagating as any field error's would.
 *
 * `operationDenials` is the other policy (`onDenied: 'reject'`): the whole operation is refused
 * before execution when any field it could run is denied.
 */
import { GraphQLError, Kind, getNamedType, isAbstractType, isInterfaceType, isObjectType } from 'graphql';
import type {
  FieldNode,
  GraphQLField,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
} from 'graphql';
import type { FieldAccess } from '../execution/plan.ts';
import type { Fragments } from '../language/collectFields.ts';
import { LruCache } from '../jsutils/lruCache.ts';
import { ErrorCode } from '../errors/codes.ts';
import type { Identity } from './identity.ts';
import { authRuleOf, roleModelOf, rulesOfField, usesOurAuthDirective } from './rules.ts';
import type { AuthRule } from './rules.ts';

/** What a caller was granted, with roles expanded through the schema's role model. */
interface Grant {
  readonly authenticated: boolean;
  readonly roles: ReadonlySet<string>;
  readonly scopes: ReadonlySet<string>;
  readonly mfa: boolean;
}

/** The verdicts for one set of grants on one schema. */
class GrantAccess implements FieldAccess {
  private readonly grant: Grant;
  private readonly readsDirective: boolean;
  private readonly verdicts = new Map<GraphQLField<unknown, unknown>, Verdict | null>();

  constructor(grant: Grant, readsDirective: boolean) {
    this.grant = grant;
    this.readsDirective = readsDirective;
  }

  denial(parentType: GraphQLObjectType, field: GraphQLField<unknown, unknown>): GraphQLError | null {
    return this.verdict(parentType, field)?.error ?? null;
  }

  verdict(parentType: GraphQLObjectType, field: GraphQLField<unknown, unknown>): Verdict | null {
    let verdict = this.verdicts.get(field);
    if (verdict === undefined) {
      verdict = null;
      // Meta fields (__typename, and introspection, which has its own switch) are never ruled.
      if (!field.name.startsWith('__')) {
        for (const { coordinate, rule } of rulesOfField(parentType, field, getNamedType(field.type), this.readsDirective)) {
          verdict = judge(rule, coordinate, this.grant);
          if (verdict !== null) break;
        }
      }
      this.verdicts.set(field, verdict);
    }
    return verdict;
  }

  hasRole(roles: ReadonlyArray<string>): boolean {
    return roles.some((role) => this.grant.roles.has(role));
  }
}

/** Why a rule refuses a grant: the error, and the scopes it wanted (for an insufficient_scope challenge). */
interface Verdict {
  readonly error: GraphQLError;
  readonly missingScopes: ReadonlyArray<string>;
}

function judge(rule: AuthRule, coordinate: string, grant: Grant): Verdict | null {
  if (rule.public === true) return null;
  const roles = rule.roles ?? [];
  const scopes = rule.scopes ?? [];
  if (roles.length > 0 && !roles.some((role) => grant.roles.has(role))) {
    const needed = roles.length === 1 ? `the role ${roles[0]}` : `one of the roles ${roles.join(', ')}`;
    return forbidden(`Access to ${coordinate} requires ${needed}.`);
  }
  const missing = scopes.filter((scope) => !grant.scopes.has(scope));
  if (missing.length > 0) {
    const needed = scopes.length === 1 ? `the scope ${scopes[0]}` : `the scopes ${scopes.join(', ')}`;
    return { ...forbidden(`Access to ${coordinate} requires ${needed}.`), missingScopes: scopes };
  }
  if (!grant.authenticated) return forbidden(`Access to ${coordinate} requires an authenticated caller.`);
  if (rule.mfa === true && !grant.mfa) {
    return {
      error: new GraphQLError(`Access to ${coordinate} requires multi-factor authentication; sign in again with a second factor.`, {
        extensions: { code: ErrorCode.MfaRequired },
      }),
      missingScopes: [],
    };
  }
  return null;
}

function forbidden(message: string): Verdict {
  return { error: new GraphQLError(message, { extensions: { code: ErrorCode.Forbidden } }), missingScopes: [] };
}

/** Per schema: whether it has rules at all, and the GrantAccess of each set of grants seen. */
interface SchemaAccess {
  readonly hasRules: boolean;
  readonly readsDirective: boolean;
  readonly roleModel: ReadonlyMap<string, ReadonlySet<string>> | null;
  /** By grant key; bounded, since tokens from an issuer could carry any number of scope sets. */
  readonly byGrant: LruCache<string, GrantAccess>;
  /** By identity object: a cached credential's identity finds its access without building the key. */
  readonly byIdentity: WeakMap<Identity, GrantAccess>;
}

const schemas = new WeakMap<GraphQLSchema, SchemaAccess>();

function schemaAccess(schema: GraphQLSchema): SchemaAccess {
  let access = schemas.get(schema);
  if (access === undefined) {
    const readsDirective = usesOurAuthDirective(schema);
    access = { hasRules: hasRules(schema, readsDirective), readsDirective, roleModel: roleModelOf(schema), byGrant: new LruCache(1000), byIdentity: new WeakMap() };
    schemas.set(schema, access);
  }
  return access;
}

function hasRules(schema: GraphQLSchema, readsDirective: boolean): boolean {
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    if (authRuleOf(type, readsDirective) !== undefined) return true;
    for (const field of Object.values(type.getFields())) {
      if (authRuleOf(field, readsDirective) !== undefined) return true;
    }
  }
  return false;
}

/**
 * The field access of a caller on a schema, for execute's `access` and the plans made for it;
 * null when the schema has no rules at all (then nothing is checked and the plain plan runs).
 */
export function accessFor(schema: GraphQLSchema, identity: Identity): GrantAccess | null {
  const perSchema = schemaAccess(schema);
  if (!perSchema.hasRules) return null;
  let access = perSchema.byIdentity.get(identity);
  if (access === undefined) {
    const grant = grantOf(identity, perSchema.roleModel);
    const key = grantKey(grant);
    access = perSchema.byGrant.get(key);
    if (access === undefined) {
      access = new GrantAccess(grant, perSchema.readsDirective);
      perSchema.byGrant.set(key, access);
    }
    perSchema.byIdentity.set(identity, access);
  }
  return access;
}

export type { GrantAccess };

/** Whether any type or field of the schema has a rule (if not, accessFor is always null). */
export function schemaHasRules(schema: GraphQLSchema): boolean {
  return schemaAccess(schema).hasRules;
}

/** Whether the caller has one of the roles (or a role that includes one), by the schema's role model. */
export function hasAnyRole(schema: GraphQLSchema, identity: Identity, roles: ReadonlyArray<string>): boolean {
  const grant = grantOf(identity, schemaAccess(schema).roleModel);
  return roles.some((role) => grant.roles.has(role));
}

function grantOf(identity: Identity, roleModel: ReadonlyMap<string, ReadonlySet<string>> | null): Grant {
  const roles = new Set<string>();
  for (const role of identity.roles) {
    const included = roleModel?.get(role);
    if (included === undefined) roles.add(role);
    else for (const each of included) roles.add(each);
  }
  return { authenticated: identity.kind !== 'anonymous', roles, scopes: new Set(identity.scopes), mfa: identity.mfa };
}

function grantKey(grant: Grant): string {
  return JSON.stringify([grant.authenticated, grant.mfa, [...grant.roles].sort(), [...grant.scopes].sort()]);
}

/** The fields an operation could run that the caller may not, for `onDenied: 'reject'`. */
export interface OperationDenials {
  /** One request error per refusal (by message: a field and the rule that denies it), located at its first use. */
  readonly errors: ReadonlyArray<GraphQLError>;
  /** The scopes those fields want, when scopes are what is missing. */
  readonly missingScopes: ReadonlyArray<string>;
}

/**
 * Every field the operation could run, on every object type it could meet there, judged for
 * this caller. Fragments are followed as their type conditions allow; `@skip`/`@include` with a
 * literal condition are honoured, and ones that read variables count as included (the verdict
 * is kept per plan, for any variables). Each selection set is walked once per set of possible
 * types, so a fragment spread a thousand times costs one walk.
 */
export function operationDenials(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Fragments,
  access: GrantAccess,
): OperationDenials {
  // By message: one field denied on several possible types by one rule (an interface's) is one error.
  const denied = new Map<string, { verdict: Verdict; node: FieldNode }>();
  const walked = new Map<SelectionSetNode, Set<string>>();
  const root = schema.getRootType(operation.operation);
  const possibleTypes = (type: GraphQLNamedType): GraphQLObjectType[] =>
    isObjectType(type) ? [type] : isAbstractType(type) ? [...schema.getPossibleTypes(type)] : [];

  const walk = (selectionSet: SelectionSetNode, types: ReadonlyArray<GraphQLObjectType>): void => {
    if (types.length === 0) return;
    const typesKey = types.map((type) => type.name).join(',');
    let seen = walked.get(selectionSet);
    if (seen === undefined) walked.set(selectionSet, (seen = new Set()));
    if (seen.has(typesKey)) return;
    seen.add(typesKey);
    for (const selection of selectionSet.selections) {
      if (excludedByLiteral(selection.directives)) continue;
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        for (const type of types) {
          const field = type.getFields()[selection.name.value];
          if (field === undefined) continue;
          const verdict = access.verdict(type, field);
          if (verdict !== null && !denied.has(verdict.error.message)) denied.set(verdict.error.message, { verdict, node: selection });
          if (selection.selectionSet !== undefined) walk(selection.selectionSet, possibleTypes(getNamedType(field.type)));
        }
      } else {
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments[selection.name.value];
        if (fragment === undefined) continue;
        const condition = fragment.typeCondition === undefined ? undefined : schema.getType(fragment.typeCondition.name.value);
        const narrowed = condition === undefined ? types : types.filter((type) => possibleTypes(condition).includes(type));
        walk(fragment.selectionSet, narrowed);
      }
    }
  };
  if (root) walk(operation.selectionSet, [root]);

  const missingScopes = new Set<string>();
  const errors = [...denied.values()].map(({ verdict, node }) => {
    for (const scope of verdict.missingScopes) missingScopes.add(scope);
    return new GraphQLError(verdict.error.message, { nodes: node, extensions: verdict.error.extensions });
  });
  return { errors, missingScopes: [...missingScopes] };
}

/** `@skip(if: true)` or `@include(if: false)`, written as literals. */
function excludedByLiteral(directives: FieldNode['directives']): boolean {
  for (const directive of directives ?? []) {
    const condition = directive.arguments?.find((argument) => argument.name.value === 'if')?.value;
    if (condition?.kind !== Kind.BOOLEAN) continue;
    if (directive.name.value === 'skip' && condition.value) return true;
    if (directive.name.value === 'include' && !condition.value) return true;
  }
  return false;
}
