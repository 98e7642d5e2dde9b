/**
 * Field-level authorization (RBAC): `@auth` rules and `permissions`, checked when the schema is
 * built (security/rules.ts), applied per caller (security/access.ts `accessFor`), planned once
 * per set of grants (execution/plan.ts `OperationPlan.forAccess`), enforced by the executor
 * (a denied field fails at its path, its resolver never called) and by the operation pipeline
 * (`onDenied: 'reject'`, `introspection: { roles }`), and answered over HTTP (403, 200,
 * `WWW-Authenticate: ... insufficient_scope`).
 *
 * Results are compared whole: data, and every error's message, path, locations and code.
 */
import { GraphQLObjectType, NoSchemaIntrospectionCustomRule, buildSchema, parse, validate } from 'graphql';
import type { ExecutionResult, GraphQLSchema } from 'graphql';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  ANONYMOUS,
  AUTH_DIRECTIVE_SDL,
  ErrorCode,
  accessFor,
  apiKeyAuth,
  createHandler,
  execute,
  hashApiKey,
  makeIdentity,
  makeSchema,
} from '../src/index.ts';
import type {
  ExecuteArgs,
  HandlerOptions,
  HandlerResponse,
  Identity,
  IdentityKind,
  MakeSchemaConfig,
  PlainRequest,
} from '../src/index.ts';
import { OperationPlan, planOperation } from '../src/execution/plan.ts';

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

interface IdentityOptions {
  scopes?: ReadonlyArray<string>;
  mfa?: boolean;
  id?: string;
  kind?: IdentityKind;
}

/** An authenticated caller with these roles (an API key's, unless said otherwise). */
function caller(roles: ReadonlyArray<string>, options: IdentityOptions = {}): Identity {
  return makeIdentity({
    id: options.id ?? `caller-${roles.join('-')}`,
    kind: options.kind ?? 'apiKey',
    roles,
    scopes: options.scopes ?? [],
    mfa: options.mfa ?? false,
    expiresAt: null,
    claims: {},
  });
}

/** A result as it goes over the wire: GraphQLErrors become { message, locations, path, extensions }. */
type WireResult = {
  data?: unknown;
  errors?: Array<{ message: string; locations?: Array<{ line: number; column: number }>; path?: Array<string | number>; extensions?: Record<string, unknown> }>;
  extensions?: Record<string, unknown>;
};

function wire(result: ExecutionResult): WireResult {
  return JSON.parse(JSON.stringify(result)) as WireResult;
}

/** The line and column (1-based) of the `nth` occurrence (0-based) of `text` in `source`. */
function at(source: string, text: string, nth = 0): { line: number; column: number } {
  let index = -1;
  for (let i = 0; i <= nth; i++) {
    index = source.indexOf(text, index + 1);
    if (index === -1) throw new Error(`"${text}" occurs fewer than ${nth + 1} times in ${source}`);
  }
  const before = source.slice(0, index).split('\n');
  return { line: before.length, column: (before[before.length - 1] as string).length + 1 };
}

/** A FORBIDDEN error as the client sees it. */
function forbidden(message: string, source: string, text: string, path: Array<string | number>, nth = 0) {
  return { message, locations: [at(source, text, nth)], path, extensions: { code: 'FORBIDDEN' } };
}

/** Executes synchronously with the caller's access; the result as the client sees it. */
function runAs(schema: GraphQLSchema, source: string, who: Identity | null, extra: Partial<ExecuteArgs> = {}): WireResult {
  const access = who === null ? undefined : accessFor(schema, who);
  const result = execute({ schema, document: parse(source), access, ...extra });
  expect(result).not.toBeInstanceOf(Promise);
  return wire(result as ExecutionResult);
}

const ROLES = { admin: ['editor'], editor: ['reader'], reader: [], auditor: [] } as const;

const ADMIN = caller(['admin']);
const EDITOR = caller(['editor']);
const READER = caller(['reader']);
const AUDITOR = caller(['auditor']);

// ---------------------------------------------------------------------------------------------
// The schema most execution tests share: every resolver and every plain read is logged.
// ---------------------------------------------------------------------------------------------

const TYPE_DEFS = /* GraphQL */ `
  type Query {
    hello: String
    secret: String @auth(roles: ["admin"])
    mustHave: String! @auth(roles: ["admin"])
    me: Profile @auth
    status: String @auth(public: true)
    profile: Profile
    profiles: [Profile]
    strictProfiles: [Profile!]
    manyProfiles: [Profile]
    viewer: Viewer
    vault: Vault
    anything: Lockable
    things: [Lockable]
    book: Book
    safe: Safe
    restricted: Restricted
    report: String @auth(scopes: ["reports:read"])
    fullReport: String @auth(scopes: ["reports:read", "reports:export"])
    editorsNote: String @auth(roles: ["editor"])
    staffNote: String @auth(roles: ["editor", "auditor"])
    readersDigest: String @auth(roles: ["reader"])
    launchCodes: String @auth(roles: ["admin"], mfa: true)
    sensitive: String @auth(mfa: true)
    cheap: String @cost(weight: "2")
    costly: String @auth(roles: ["admin"]) @cost(weight: "5")
  }

  type Profile {
    name: String
    email: String @auth(roles: ["admin"])
    ssn: String! @auth(roles: ["admin"])
  }

  type Viewer {
    account: Account!
  }

  type Account {
    id: ID!
    balance: Int! @auth(roles: ["admin"])
  }

  interface Lockable {
    id: ID!
  }

  type Vault implements Lockable @auth(roles: ["admin"]) {
    id: ID!
    secret: String @auth(scopes: ["vault:read"])
  }

  type Box implements Lockable {
    id: ID!
    label: String
  }

  interface Item {
    id: ID!
    internalNote: String @auth(roles: ["editor"])
  }

  interface Restricted @auth(roles: ["admin"]) {
    code: String
  }

  type Book implements Item {
    id: ID!
    title: String
    internalNote: String
  }

  type Safe implements Item & Restricted {
    id: ID!
    internalNote: String
    code: String
    label: String
  }

  type Mutation {
    bump: Int! @auth(public: true)
    wipe: Int @auth(roles: ["admin"])
    wipeStrict: Int! @auth(roles: ["admin"])
  }
`;

/** Every resolver call and every plain read, as `Type.field`, in order. */
let calls: string[] = [];
let counter = 0;

beforeEach(() => {
  calls = [];
  counter = 0;
});

/** An object whose properties log their reads: a plain read (no resolver) shows up in `calls` too. */
function logged<T extends Record<string, unknown>>(typeName: string, values: T): T {
  const record = {} as T;
  for (const [key, value] of Object.entries(values)) {
    Object.defineProperty(record, key, {
      enumerable: true,
      get() {
        calls.push(`${typeName}.${key}`);
        return value;
      },
    });
  }
  return record;
}

/** A resolver that logs its call and returns `value`. */
function track<T>(coordinate: string, value: () => T): () => T {
  return () => {
    calls.push(coordinate);
    return value();
  };
}

const profile = (name: string) => logged('Profile', { name, email: `${name.toLowerCase()}@example.com`, ssn: `ssn-${name}` });

function resolvers(): NonNullable<MakeSchemaConfig['resolvers']> {
  return {
    Query: {
      hello: track('Query.hello', () => 'world'),
      secret: track('Query.secret', () => 'the secret'),
      mustHave: track('Query.mustHave', () => 'had'),
      me: track('Query.me', () => profile('Me')),
      status: track('Query.status', () => 'green'),
      profile: track('Query.profile', () => profile('Ada')),
      profiles: track('Query.profiles', () => [profile('Ada'), profile('Grace')]),
      strictProfiles: track('Query.strictProfiles', () => [profile('Ada'), profile('Grace')]),
      manyProfiles: track('Query.manyProfiles', () => Array.from({ length: 40 }, (_, index) => profile(`P${index}`))),
      viewer: track('Query.viewer', () => ({ account: { id: 'acc-1', balance: 100 } })),
      vault: track('Query.vault', () => ({ kind: 'Vault', id: 'v1', secret: 'hunter2' })),
      anything: track('Query.anything', () => ({ kind: 'Vault', id: 'v1', secret: 'hunter2' })),
      things: track('Query.things', () => [
        { kind: 'Vault', id: 'v1', secret: 'hunter2' },
        { kind: 'Box', id: 'b1', label: 'shoes' },
      ]),
      book: track('Query.book', () => logged('Book', { id: 'bk1', title: 'Dune', internalNote: 'reprint' })),
      safe: track('Query.safe', () => logged('Safe', { id: 's1', internalNote: 'heavy', code: '1234', label: 'office' })),
      restricted: track('Query.restricted', () => ({ kind: 'Safe', id: 's1', code: '1234' })),
      report: track('Query.report', () => 'report'),
      fullReport: track('Query.fullReport', () => 'full report'),
      editorsNote: track('Query.editorsNote', () => 'note'),
      staffNote: track('Query.staffNote', () => 'staff'),
      readersDigest: track('Query.readersDigest', () => 'digest'),
      launchCodes: track('Query.launchCodes', () => '0000'),
      sensitive: track('Query.sensitive', () => 'sensitive'),
      cheap: track('Query.cheap', () => 'cheap'),
      costly: track('Query.costly', () => 'costly'),
    },
    Account: {
      balance: (account: { balance: number }) => {
        calls.push('Account.balance');
        return account.balance;
      },
    },
    Lockable: { __resolveType: (value: { kind: string }) => value.kind },
    Restricted: { __resolveType: (value: { kind: string }) => value.kind },
    Item: { __resolveType: (value: { kind: string }) => value.kind },
    Mutation: {
      bump: () => {
        calls.push('Mutation.bump');
        return ++counter;
      },
      wipe: () => {
        calls.push('Mutation.wipe');
        counter = 0;
        return counter;
      },
      wipeStrict: () => {
        calls.push('Mutation.wipeStrict');
        counter = 0;
        return counter;
      },
    },
  };
}

function buildMain(): GraphQLSchema {
  return makeSchema({ typeDefs: TYPE_DEFS, roles: ROLES, resolvers: resolvers() });
}

const schema = buildMain();

/** makeSchema's TypeError for this config (fails the test if it builds). */
function buildError(config: MakeSchemaConfig): string {
  try {
    makeSchema(config);
  } catch (error) {
    expect(error).toBeInstanceOf(TypeError);
    return (error as TypeError).message;
  }
  throw new Error('makeSchema built the schema; a TypeError was expected');
}

const STRICT_TAIL =
  'Every mutation must say who may run it: @auth(roles: [...]) or @auth(public: true) in the SDL, or an entry in permissions (or set strictMutations: false).';

// ---------------------------------------------------------------------------------------------
// 1. Build time
// ---------------------------------------------------------------------------------------------

describe('authorization at build time: makeSchema checks every rule', () => {
  it('accepts @auth in an SDL that does not declare it, declaring it with roles, scopes, mfa and public', () => {
    const built = makeSchema({ typeDefs: 'type Query { a: String @auth(roles: ["admin"]) b: String }', roles: ['admin'] });
    const directive = built.getDirective('auth');
    expect(directive?.args.map((argument) => `${argument.name}: ${String(argument.type)}`)).toEqual([
      'roles: [String!]',
      'scopes: [String!]',
      'mfa: Boolean',
      'public: Boolean',
    ]);
    expect(directive?.locations).toEqual(['OBJECT', 'INTERFACE', 'FIELD_DEFINITION']);
    const query = built.getQueryType() as GraphQLObjectType;
    expect(accessFor(built, READER)?.denial(query, query.getFields().a!)?.message).toBe('Access to Query.a requires the role admin.');
    expect(accessFor(built, READER)?.denial(query, query.getFields().b!)).toBeNull();
  });

  it('leaves an SDL that declares no @auth and uses none without the directive', () => {
    const built = makeSchema({ typeDefs: 'type Query { a: String }' });
    expect(built.getDirective('auth')).toBeUndefined();
  });

  it('refuses a rule naming a role that is not declared, naming the rule and the declared roles', () => {
    expect(
      buildError({ typeDefs: 'type Query { secret: String @auth(roles: ["root"]) }', roles: ['admin', 'reader'] }),
    ).toBe('makeSchema: the @auth rule of Query.secret names the role "root", which is not declared; the roles are admin, reader.');
    expect(
      buildError({ typeDefs: 'type Query { secret: String }', roles: { admin: [], reader: [] }, permissions: { 'Query.secret': { roles: ['reader', 'root'] } } }),
    ).toBe('makeSchema: the permission of Query.secret names the role "root", which is not declared; the roles are admin, reader.');
    expect(buildError({ typeDefs: 'type Query { a: String } type Vault @auth(roles: ["root"]) { id: ID }', roles: ['admin'] })).toBe(
      'makeSchema: the @auth rule of Vault names the role "root", which is not declared; the roles are admin.',
    );
  });

  it('refuses a rule naming a role when the schema declares no roles', () => {
    expect(buildError({ typeDefs: 'type Query { secret: String @auth(roles: ["admin"]) }' })).toBe(
      'makeSchema: the @auth rule of Query.secret names the role "admin", but the schema declares no roles; list them in makeSchema({ roles }).',
    );
    expect(buildError({ typeDefs: 'type Query { secret: String }', permissions: { Query: { roles: ['admin'] } } })).toBe(
      'makeSchema: the permission of Query names the role "admin", but the schema declares no roles; list them in makeSchema({ roles }).',
    );
  });

  it('refuses roles: [], which lets nobody in, in the SDL and in permissions', () => {
    expect(buildError({ typeDefs: 'type Query { secret: String @auth(roles: []) }', roles: ['admin'] })).toBe(
      'makeSchema: the @auth rule of Query.secret has roles: [], which lets nobody in; name the roles, or leave roles out for any authenticated caller.',
    );
    expect(buildError({ typeDefs: 'type Query { secret: String }', roles: ['admin'], permissions: { 'Query.secret': { roles: [] } } })).toBe(
      'makeSchema: the permission of Query.secret has roles: [], which lets nobody in; name the roles, or leave roles out for any authenticated caller.',
    );
  });

  it('refuses a rule that is public and restricted at once (roles, scopes or mfa)', () => {
    const message = (where: string) => `makeSchema: ${where} is public and restricted at once; public: true stands alone.`;
    expect(buildError({ typeDefs: 'type Query { a: String @auth(public: true, roles: ["admin"]) }', roles: ['admin'] })).toBe(
      message('the @auth rule of Query.a'),
    );
    expect(buildError({ typeDefs: 'type Query { a: String }', permissions: { 'Query.a': { public: true, scopes: ['read'] } } })).toBe(
      message('the permission of Query.a'),
    );
    expect(buildError({ typeDefs: 'type Query { a: String }', permissions: { Query: { public: true, mfa: true } } })).toBe(
      message('the permission of Query'),
    );
  });

  it('refuses unknown keys and values of the wrong kind in a permissions rule', () => {
    const typeDefs = 'type Query { a: String }';
    expect(buildError({ typeDefs, roles: ['admin'], permissions: { 'Query.a': { role: ['admin'] } as never } })).toBe(
      'makeSchema: the permission of Query.a has "role"; a rule has only roles, scopes, mfa and public.',
    );
    expect(buildError({ typeDefs, permissions: { 'Query.a': 'admin' as never } })).toBe(
      "makeSchema: the permission of Query.a must be an object like { roles: ['editor'] }, got a string.",
    );
    expect(buildError({ typeDefs, permissions: { 'Query.a': null as never } })).toBe(
      "makeSchema: the permission of Query.a must be an object like { roles: ['editor'] }, got null.",
    );
    expect(buildError({ typeDefs, roles: ['admin'], permissions: { 'Query.a': { roles: 'admin' as never } } })).toBe(
      'makeSchema: the permission of Query.a has roles that are not a list of non-empty strings.',
    );
    expect(buildError({ typeDefs, permissions: { 'Query.a': { scopes: [''] } } })).toBe(
      'makeSchema: the permission of Query.a has scopes that are not a list of non-empty strings.',
    );
    expect(buildError({ typeDefs, permissions: { 'Query.a': { mfa: 'yes' as never } } })).toBe(
      'makeSchema: the permission of Query.a has mfa that is not a boolean.',
    );
    expect(buildError({ typeDefs, permissions: { 'Query.a': { public: 1 as never } } })).toBe(
      'makeSchema: the permission of Query.a has public that is not a boolean.',
    );
    expect(buildError({ typeDefs, permissions: 'Query.a' as never })).toBe(
      "makeSchema: permissions must be an object of rules by coordinate ('Type' or 'Type.field'), got a string.",
    );
  });

  it('refuses a permissions coordinate that names no object type, interface or field of one', () => {
    const typeDefs = 'type Query { a: String b: Thing } type Thing { id: ID } union Any = Thing input In { x: Int } enum E { A }';
    const notAType = (coordinate: string) =>
      `makeSchema: permissions name "${coordinate}", which is not an object type, an interface or one of their fields in the schema.`;
    expect(buildError({ typeDefs, permissions: { Nowhere: {} } })).toBe(notAType('Nowhere'));
    expect(buildError({ typeDefs, permissions: { 'Query.a.b': {} } })).toBe(notAType('Query.a.b'));
    expect(buildError({ typeDefs, permissions: { Any: {} } })).toBe(notAType('Any'));
    expect(buildError({ typeDefs, permissions: { In: {} } })).toBe(notAType('In'));
    expect(buildError({ typeDefs, permissions: { 'In.x': {} } })).toBe(notAType('In.x'));
    expect(buildError({ typeDefs, permissions: { E: {} } })).toBe(notAType('E'));
    expect(buildError({ typeDefs, permissions: { String: {} } })).toBe(notAType('String'));
    expect(buildError({ typeDefs, permissions: { 'Query.nope': {} } })).toBe('makeSchema: permissions name "Query.nope", but Query has no field "nope".');
    expect(buildError({ typeDefs, permissions: { 'Thing.name': {} } })).toBe('makeSchema: permissions name "Thing.name", but Thing has no field "name".');
  });

  it('refuses the same coordinate ruled in the SDL and in permissions', () => {
    expect(
      buildError({ typeDefs: 'type Query { a: String @auth }', permissions: { 'Query.a': { scopes: ['read'] } } }),
    ).toBe('makeSchema: Query.a has an @auth rule in the SDL and one in permissions; keep one.');
    expect(buildError({ typeDefs: 'type Query @auth { a: String }', permissions: { Query: {} } })).toBe(
      'makeSchema: Query has an @auth rule in the SDL and one in permissions; keep one.',
    );
  });

  it('accepts rules in the SDL and in permissions on different coordinates, and applies both', () => {
    const built = makeSchema({
      typeDefs: 'type Query { a: String @auth(roles: ["admin"]) b: String }',
      roles: ['admin'],
      permissions: { 'Query.b': { scopes: ['read'] } },
      resolvers: { Query: { a: () => 'A', b: () => 'B' } },
    });
    const source = '{ a b }';
    expect(runAs(built, source, caller(['admin']))).toEqual({
      data: { a: 'A', b: null },
      errors: [forbidden('Access to Query.b requires the scope read.', source, 'b', ['b'])],
    });
    expect(runAs(built, source, caller([], { scopes: ['read'] }))).toEqual({
      data: { a: null, b: 'B' },
      errors: [forbidden('Access to Query.a requires the role admin.', source, 'a', ['a'])],
    });
  });

  it('expands role inheritance through every level, and refuses an included role that is not declared', () => {
    const built = makeSchema({
      typeDefs: 'type Query { r: String @auth(roles: ["reader"]) e: String @auth(roles: ["editor"]) a: String @auth(roles: ["admin"]) }',
      roles: ROLES,
      resolvers: { Query: { r: () => 'r', e: () => 'e', a: () => 'a' } },
    });
    expect(runAs(built, '{ r e a }', ADMIN)).toEqual({ data: { r: 'r', e: 'e', a: 'a' } });
    expect(buildError({ typeDefs: 'type Query { a: String }', roles: { admin: ['editor'], editor: ['root'] } })).toBe(
      'makeSchema: the role "admin" includes "root", which is not declared.',
    );
    expect(buildError({ typeDefs: 'type Query { a: String }', roles: { admin: 'editor' as never } })).toBe(
      'makeSchema: roles.admin must list the roles it includes, got a string.',
    );
    expect(buildError({ typeDefs: 'type Query { a: String }', roles: ['admin', ''] })).toBe(
      'makeSchema: a role name must be a non-empty string, got a string.',
    );
    expect(buildError({ typeDefs: 'type Query { a: String }', roles: 'admin' as never })).toBe(
      'makeSchema: roles must be a list of role names or an object of roles and the roles each includes, got a string.',
    );
  });

  it('accepts roles that include each other in a cycle: each then includes the other', () => {
    const built = makeSchema({
      typeDefs: 'type Query { a: String @auth(roles: ["a"]) b: String @auth(roles: ["b"]) }',
      roles: { a: ['b'], b: ['a'] },
      resolvers: { Query: { a: () => 'A', b: () => 'B' } },
    });
    expect(runAs(built, '{ a b }', caller(['a']))).toEqual({ data: { a: 'A', b: 'B' } });
  });
});

describe('authorization at build time: where rules may be written', () => {
  it('reads a single role written without brackets as a list of one', () => {
    const built = makeSchema({ typeDefs: 'type Query { a: String @auth(roles: "admin") }', roles: ['admin'], resolvers: { Query: { a: () => 'A' } } });
    const source = '{ a }';
    expect(runAs(built, source, ADMIN)).toEqual({ data: { a: 'A' } });
    expect(runAs(built, source, READER)).toEqual({
      data: { a: null },
      errors: [forbidden('Access to Query.a requires the role admin.', source, 'a', ['a'])],
    });
  });

  it('applies rules written on type extensions, on the type and on its fields', () => {
    const built = makeSchema({
      typeDefs: /* GraphQL */ `
        type Query { a: String box: Box }
        extend type Query { b: String @auth(roles: ["admin"]) }
        type Box { id: ID }
        extend type Box @auth(roles: ["admin"])
      `,
      roles: ['admin'],
      resolvers: { Query: { a: () => 'A', b: () => 'B', box: () => ({ id: 'x' }) } },
    });
    const source = '{ a b box { id } }';
    expect(runAs(built, source, READER)).toEqual({
      data: { a: 'A', b: null, box: null },
      errors: [
        forbidden('Access to Query.b requires the role admin.', source, 'b', ['b']),
        forbidden('Access to Box requires the role admin.', source, 'box', ['box']),
      ],
    });
    expect(runAs(built, source, ADMIN)).toEqual({ data: { a: 'A', b: 'B', box: { id: 'x' } } });
  });

  it('never silently ignores a permission on an introspection type or field: it is refused at build time or enforced', () => {
    const ignored: string[] = [];
    for (const coordinate of ['__Schema', '__Type', '__Type.name', '__Field.args']) {
      let built: GraphQLSchema;
      try {
        built = makeSchema({ typeDefs: 'type Query { a: String }', roles: ['admin'], permissions: { [coordinate]: { roles: ['admin'] } } });
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
        expect((error as TypeError).message).toContain(coordinate);
        continue;
      }
      // Built: then the rule must hold for a caller without the role.
      const result = runAs(built, '{ __schema { queryType { name fields { name args { name } } } } }', READER);
      if (!(result.errors ?? []).some((error) => error.extensions?.['code'] === 'FORBIDDEN')) ignored.push(coordinate);
    }
    expect(ignored, 'permissions accepted by makeSchema but never enforced').toEqual([]);
  });
});

describe('authorization at build time: strict mutations', () => {
  it('refuses a Mutation field without a rule, naming it', () => {
    expect(
      buildError({ typeDefs: 'type Query { a: String } type Mutation { save: Int @auth(roles: ["admin"]) drop: Int }', roles: ['admin'] }),
    ).toBe(`makeSchema: mutation field Mutation.drop has no authorization rule. ${STRICT_TAIL}`);
  });

  it('names every unguarded Mutation field together', () => {
    expect(
      buildError({
        typeDefs: 'type Query { a: String @auth } type Mutation { save: Int drop: Int @auth load: Int }',
      }),
    ).toBe(`makeSchema: mutation fields Mutation.save, Mutation.load have no authorization rule. ${STRICT_TAIL}`);
  });

  it('names the mutation root type by its own name', () => {
    expect(
      buildError({ typeDefs: 'schema { query: Q mutation: Writes } type Q { a: String } type Writes { save: Int }', roles: ['admin'] }),
    ).toBe(`makeSchema: mutation field Writes.save has no authorization rule. ${STRICT_TAIL}`);
  });

  it('makes mutations strict as soon as roles are declared, even with no rule anywhere', () => {
    expect(buildError({ typeDefs: 'type Query { a: String } type Mutation { save: Int }', roles: ['admin'] })).toBe(
      `makeSchema: mutation field Mutation.save has no authorization rule. ${STRICT_TAIL}`,
    );
  });

  it('makes mutations strict when strictMutations: true, even with no authorization at all', () => {
    expect(buildError({ typeDefs: 'type Query { a: String } type Mutation { save: Int }', strictMutations: true })).toBe(
      `makeSchema: mutation field Mutation.save has no authorization rule. ${STRICT_TAIL}`,
    );
  });

  it('is satisfied by @auth(public: true), by a rule on the Mutation type, or by permissions', () => {
    const typeDefs = 'type Query { a: String @auth } type Mutation { save: Int drop: Int }';
    expect(() => makeSchema({ typeDefs: 'type Query { a: String @auth } type Mutation { save: Int @auth(public: true) drop: Int @auth }' })).not.toThrow();
    expect(() => makeSchema({ typeDefs: 'type Query { a: String } type Mutation @auth(roles: ["admin"]) { save: Int drop: Int }', roles: ['admin'] })).not.toThrow();
    expect(() => makeSchema({ typeDefs, permissions: { Mutation: { roles: ['admin'] } }, roles: ['admin'] })).not.toThrow();
    expect(() => makeSchema({ typeDefs, permissions: { 'Mutation.save': { public: true }, 'Mutation.drop': { mfa: true } } })).not.toThrow();
  });

  it('is turned off by strictMutations: false', () => {
    const built = makeSchema({
      typeDefs: 'type Query { a: String @auth } type Mutation { save: Int }',
      strictMutations: false,
      resolvers: { Mutation: { save: () => 1 } },
    });
    expect(runAs(built, 'mutation { save }', ANONYMOUS)).toEqual({ data: { save: 1 } });
  });

  it('does not apply to a schema that uses no authorization at all', () => {
    const built = makeSchema({ typeDefs: 'type Query { a: String } type Mutation { save: Int }', resolvers: { Mutation: { save: () => 1 } } });
    expect(accessFor(built, ANONYMOUS)).toBeNull();
    expect(runAs(built, 'mutation { save }', ANONYMOUS)).toEqual({ data: { save: 1 } });
  });
});

describe('authorization at build time: an @auth directive of another library', () => {
  const typeDefs = /* GraphQL */ `
    directive @auth(requires: String) on OBJECT | FIELD_DEFINITION
    type Query { a: String @auth(requires: "ADMIN") b: String }
    type Mutation @auth(requires: "USER") { save: Int }
  `;

  it('is left alone: not read as rules, no roles needed, mutations not strict, nothing denied', () => {
    const built = makeSchema({ typeDefs, resolvers: { Query: { a: () => 'A', b: () => 'B' }, Mutation: { save: () => 1 } } });
    expect(built.getDirective('auth')?.args.map((argument) => argument.name)).toEqual(['requires']);
    expect(accessFor(built, ANONYMOUS)).toBeNull();
    expect(runAs(built, '{ a b }', ANONYMOUS)).toEqual({ data: { a: 'A', b: 'B' } });
    expect(runAs(built, 'mutation { save }', ANONYMOUS)).toEqual({ data: { save: 1 } });
  });

  it('does not stop permissions from applying, with the SDL @auth still ignored', () => {
    const built = makeSchema({
      typeDefs,
      roles: ['admin'],
      permissions: { 'Query.b': { roles: ['admin'] }, Mutation: { public: true } },
      resolvers: { Query: { a: () => 'A', b: () => 'B' } },
    });
    const source = '{ a b }';
    expect(runAs(built, source, READER)).toEqual({
      data: { a: 'A', b: null },
      errors: [forbidden('Access to Query.b requires the role admin.', source, 'b', ['b'])],
    });
  });

  it('is read as rules when its arguments are among ours, even declared by the SDL itself', () => {
    const built = makeSchema({
      typeDefs: 'directive @auth(roles: [String!]) on FIELD_DEFINITION type Query { a: String @auth(roles: ["admin"]) }',
      roles: ['admin'],
      resolvers: { Query: { a: () => 'A' } },
    });
    const source = '{ a }';
    expect(runAs(built, source, READER)).toEqual({
      data: { a: null },
      errors: [forbidden('Access to Query.a requires the role admin.', source, 'a', ['a'])],
    });
  });

  it('in a schema built by graphql-js from our directive, @auth is read at run time, each role standing alone', () => {
    const built = buildSchema(`${AUTH_DIRECTIVE_SDL} type Query { a: String @auth(roles: ["editor"]) b: String @auth }`);
    const source = '{ a b }';
    const rootValue = { a: 'A', b: 'B' };
    expect(runAs(built, source, EDITOR, { rootValue })).toEqual({ data: { a: 'A', b: 'B' } });
    // No role model: admin does not include editor here.
    expect(runAs(built, source, ADMIN, { rootValue })).toEqual({
      data: { a: null, b: 'B' },
      errors: [forbidden('Access to Query.a requires the role editor.', source, 'a', ['a'])],
    });
    expect(runAs(built, source, ANONYMOUS, { rootValue })).toEqual({
      data: { a: null, b: null },
      errors: [
        forbidden('Access to Query.a requires the role editor.', source, 'a', ['a']),
        forbidden('Access to Query.b requires an authenticated caller.', source, 'b', ['b']),
      ],
    });
  });
});

// ---------------------------------------------------------------------------------------------
// 2. Execution
// ---------------------------------------------------------------------------------------------

describe('execution with access: a denied field fails at its path and its resolver never runs', () => {
  it('makes a denied nullable field null with a FORBIDDEN error, without calling its resolver', () => {
    const source = '{ hello secret }';
    expect(runAs(schema, source, READER)).toEqual({
      data: { hello: 'world', secret: null },
      errors: [forbidden('Access to Query.secret requires the role admin.', source, 'secret', ['secret'])],
    });
    expect(calls).toEqual(['Query.hello']);
    expect(ErrorCode.Forbidden).toBe('FORBIDDEN');
  });

  it('runs the same field for a caller with the role', () => {
    expect(runAs(schema, '{ hello secret }', ADMIN)).toEqual({ data: { hello: 'world', secret: 'the secret' } });
    expect(calls).toEqual(['Query.hello', 'Query.secret']);
  });

  it('never reads a denied field that has no resolver (a plain property read)', () => {
    const source = '{ profile { name email } }';
    expect(runAs(schema, source, READER)).toEqual({
      data: { profile: { name: 'Ada', email: null } },
      errors: [forbidden('Access to Profile.email requires the role admin.', source, 'email', ['profile', 'email'])],
    });
    expect(calls).toEqual(['Query.profile', 'Profile.name']);
  });

  it('nulls the nearest nullable ancestor of a denied Non-Null field, with one error at the field', () => {
    const source = '{ hello profile { name ssn } }';
    expect(runAs(schema, source, READER)).toEqual({
      data: { hello: 'world', profile: null },
      errors: [forbidden('Access to Profile.ssn requires the role admin.', source, 'ssn', ['profile', 'ssn'])],
    });
    expect(calls).toEqual(['Query.hello', 'Query.profile', 'Profile.name']);
  });

  it('carries the null up through Non-Null parents to the first nullable one', () => {
    const source = '{ viewer { account { id balance } } hello }';
    expect(runAs(schema, source, READER)).toEqual({
      data: { viewer: null, hello: 'world' },
      errors: [forbidden('Access to Account.balance requires the role admin.', source, 'balance', ['viewer', 'account', 'balance'])],
    });
    expect(calls).toEqual(['Query.viewer', 'Query.hello']);
  });

  it('nulls data itself for a denied Non-Null root field', () => {
    const source = '{ hello mustHave }';
    expect(runAs(schema, source, READER)).toEqual({
      data: null,
      errors: [forbidden('Access to Query.mustHave requires the role admin.', source, 'mustHave', ['mustHave'])],
    });
    expect(calls).toEqual(['Query.hello']);
  });

  it('gives each list item its own error', () => {
    const source = '{ profiles { name email } }';
    expect(runAs(schema, source, READER)).toEqual({
      data: { profiles: [{ name: 'Ada', email: null }, { name: 'Grace', email: null }] },
      errors: [
        forbidden('Access to Profile.email requires the role admin.', source, 'email', ['profiles', 0, 'email']),
        forbidden('Access to Profile.email requires the role admin.', source, 'email', ['profiles', 1, 'email']),
      ],
    });
    expect(calls).toEqual(['Query.profiles', 'Profile.name', 'Profile.name']);
  });

  it('nulls each item for a denied Non-Null field in a list of nullable items', () => {
    const source = '{ profiles { ssn } }';
    expect(runAs(schema, source, READER)).toEqual({
      data: { profiles: [null, null] },
      errors: [
        forbidden('Access to Profile.ssn requires the role admin.', source, 'ssn', ['profiles', 0, 'ssn']),
        forbidden('Access to Profile.ssn requires the role admin.', source, 'ssn', ['profiles', 1, 'ssn']),
      ],
    });
  });

  it('nulls the whole list, with one error, for a denied Non-Null field in a list of Non-Null items', () => {
    const source = '{ strictProfiles { name ssn } hello }';
    expect(runAs(schema, source, READER)).toEqual({
      data: { strictProfiles: null, hello: 'world' },
      errors: [forbidden('Access to Profile.ssn requires the role admin.', source, 'ssn', ['strictProfiles', 0, 'ssn'])],
    });
    expect(calls).toEqual(['Query.strictProfiles', 'Profile.name', 'Query.hello']);
  });

  it('refuses a denied plain read on every item of a long list, also once the selection is compiled', () => {
    const source = '{ manyProfiles { name email } }';
    const result = runAs(schema, source, READER);
    const data = result.data as { manyProfiles: Array<{ name: string; email: string | null }> };
    expect(data.manyProfiles).toEqual(Array.from({ length: 40 }, (_, index) => ({ name: `P${index}`, email: null })));
    expect(result.errors).toEqual(
      Array.from({ length: 40 }, (_, index) =>
        forbidden('Access to Profile.email requires the role admin.', source, 'email', ['manyProfiles', index, 'email']),
      ),
    );
    expect(calls.filter((call) => call === 'Profile.email')).toEqual([]);
    expect(calls.filter((call) => call === 'Profile.name')).toHaveLength(40);
  });

  it('reports the field by its response name (alias) in the path, and each alias separately', () => {
    const source = '{ first: secret second: secret }';
    expect(runAs(schema, source, READER)).toEqual({
      data: { first: null, second: null },
      errors: [
        forbidden('Access to Query.secret requires the role admin.', source, 'first', ['first']),
        forbidden('Access to Query.secret requires the role admin.', source, 'second', ['second']),
      ],
    });
    expect(calls).toEqual([]);
  });

  it('reports both locations of a field selected twice under one response name', () => {
    const source = '{ secret ... on Query { secret } }';
    expect(runAs(schema, source, READER)).toEqual({
      data: { secret: null },
      errors: [
        {
          message: 'Access to Query.secret requires the role admin.',
          locations: [at(source, 'secret'), at(source, 'secret', 1)],
          path: ['secret'],
          extensions: { code: 'FORBIDDEN' },
        },
      ],
    });
  });
});

describe('execution with access: asynchronous resolvers around a denied field', () => {
  it('refuses the field at once and waits for the asynchronous siblings, as graphql-js waits for them', async () => {
    const log: string[] = [];
    const tick = async <T>(value: T, name: string): Promise<T> => {
      await null;
      log.push(name);
      return value;
    };
    const built = makeSchema({
      typeDefs: /* GraphQL */ `
        type Query { p: P ps: [P] slow: String }
        type P { name: String ssn: String! @auth(roles: ["admin"]) later: String email: String @auth(roles: ["admin"]) }
      `,
      roles: ['admin'],
      resolvers: {
        Query: { p: () => tick({ name: 'a' }, 'Query.p'), ps: () => tick([{ name: 'a' }, { name: 'b' }], 'Query.ps'), slow: () => tick('slow', 'Query.slow') },
        P: { name: (parent: { name: string }) => tick(parent.name, 'P.name'), later: () => tick('l', 'P.later') },
      },
    });
    const nonNull = '{ p { name ssn later } slow }';
    const pending = execute({ schema: built, document: parse(nonNull), access: accessFor(built, READER) });
    expect(pending).toBeInstanceOf(Promise);
    expect(wire(await pending)).toEqual({
      errors: [forbidden('Access to P.ssn requires the role admin.', nonNull, 'ssn', ['p', 'ssn'])],
      data: { p: null, slow: 'slow' },
    });
    expect(log.sort()).toEqual(['P.name', 'Query.p', 'Query.slow']);
    log.length = 0;
    const nullable = '{ ps { name email later } }';
    expect(wire(await execute({ schema: built, document: parse(nullable), access: accessFor(built, READER) }))).toEqual({
      errors: [
        forbidden('Access to P.email requires the role admin.', nullable, 'email', ['ps', 0, 'email']),
        forbidden('Access to P.email requires the role admin.', nullable, 'email', ['ps', 1, 'email']),
      ],
      data: { ps: [{ name: 'a', email: null, later: 'l' }, { name: 'b', email: null, later: 'l' }] },
    });
    expect(log.sort()).toEqual(['P.later', 'P.later', 'P.name', 'P.name', 'Query.ps']);
  });
});

describe('execution with access: rules on types and interfaces', () => {
  it('applies a rule on an object type to the fields returning it, without running their resolvers', () => {
    const source = '{ vault { id } hello }';
    expect(runAs(schema, source, READER)).toEqual({
      data: { vault: null, hello: 'world' },
      errors: [forbidden('Access to Vault requires the role admin.', source, 'vault', ['vault'])],
    });
    expect(calls).toEqual(['Query.hello']);
  });

  it('applies a rule on an object type to every field of it, reached through an interface', () => {
    const source = '{ things { __typename id } }';
    expect(runAs(schema, source, READER)).toEqual({
      data: { things: [null, { __typename: 'Box', id: 'b1' }] },
      errors: [forbidden('Access to Vault requires the role admin.', source, 'id', ['things', 0, 'id'])],
    });
    const nullable = '{ anything { __typename ... on Vault { secret } } }';
    expect(runAs(schema, nullable, caller(['reader'], { scopes: ['vault:read'] }))).toEqual({
      data: { anything: { __typename: 'Vault', secret: null } },
      errors: [forbidden('Access to Vault requires the role admin.', nullable, 'secret', ['anything', 'secret'])],
    });
  });

  it('checks the field rule first, then the type rule: the first refusal is reported', () => {
    const source = '{ anything { ... on Vault { secret } } }';
    expect(runAs(schema, source, READER)).toEqual({
      data: { anything: { secret: null } },
      errors: [forbidden('Access to Vault.secret requires the scope vault:read.', source, 'secret', ['anything', 'secret'])],
    });
    expect(runAs(schema, source, ADMIN)).toEqual({
      data: { anything: { secret: null } },
      errors: [forbidden('Access to Vault.secret requires the scope vault:read.', source, 'secret', ['anything', 'secret'])],
    });
    expect(runAs(schema, source, caller(['admin'], { scopes: ['vault:read'] }))).toEqual({ data: { anything: { secret: 'hunter2' } } });
  });

  it('never loosens a type rule with a field rule: the field needs both', () => {
    const source = '{ anything { ... on Vault { secret } } }';
    expect(runAs(schema, source, caller(['reader'], { scopes: ['vault:read'] }))).toEqual({
      data: { anything: { secret: null } },
      errors: [forbidden('Access to Vault requires the role admin.', source, 'secret', ['anything', 'secret'])],
    });
  });

  it("opens one field of a guarded type with the field's own @auth(public: true), and no other", () => {
    let ran: string[] = [];
    const guarded = makeSchema({
      typeDefs: `
        type Query { ping: String }
        type Mutation @auth(roles: ["admin"]) { login: String @auth(public: true) wipe: String }
      `,
      roles: ['admin'],
      resolvers: {
        Query: { ping: () => 'pong' },
        Mutation: {
          login: () => (ran.push('login'), 'token'),
          wipe: () => (ran.push('wipe'), 'wiped'),
        },
      },
    });
    const source = 'mutation { login wipe }';
    expect(runAs(guarded, source, ANONYMOUS)).toEqual({
      data: { login: 'token', wipe: null },
      errors: [forbidden('Access to Mutation requires the role admin.', source, 'wipe', ['wipe'])],
    });
    expect(ran).toEqual(['login']);
    ran = [];
    expect(runAs(guarded, source, ADMIN)).toEqual({ data: { login: 'token', wipe: 'wiped' } });
    expect(ran).toEqual(['login', 'wipe']);
  });

  it('applies a rule on an interface field to that field of every implementation', () => {
    const source = '{ book { title internalNote } safe { internalNote } }';
    expect(runAs(schema, source, READER)).toEqual({
      data: { book: { title: 'Dune', internalNote: null }, safe: { internalNote: null } },
      errors: [
        forbidden('Access to Item.internalNote requires the role editor.', source, 'internalNote', ['book', 'internalNote']),
        forbidden('Access to Item.internalNote requires the role editor.', source, 'internalNote', ['safe', 'internalNote'], 1),
      ],
    });
    expect(calls).toEqual(['Query.book', 'Book.title', 'Query.safe']);
    expect(runAs(schema, '{ book { internalNote } }', EDITOR)).toEqual({ data: { book: { internalNote: 'reprint' } } });
  });

  it('applies a rule on an interface to every field of its implementations and to fields returning it', () => {
    const source = '{ safe { label } restricted { code } }';
    expect(runAs(schema, source, EDITOR)).toEqual({
      data: { safe: { label: null }, restricted: null },
      errors: [
        forbidden('Access to Restricted requires the role admin.', source, 'label', ['safe', 'label']),
        forbidden('Access to Restricted requires the role admin.', source, 'restricted', ['restricted']),
      ],
    });
    expect(calls).toEqual(['Query.safe']);
    expect(runAs(schema, source, ADMIN)).toEqual({ data: { safe: { label: 'office' }, restricted: { code: '1234' } } });
  });

  it('answers accessFor(...).denial per object type and field, null where allowed', () => {
    const access = accessFor(schema, READER);
    const vault = schema.getType('Vault') as GraphQLObjectType;
    const box = schema.getType('Box') as GraphQLObjectType;
    expect(access?.denial(vault, vault.getFields().id!)?.message).toBe('Access to Vault requires the role admin.');
    expect(access?.denial(vault, vault.getFields().id!)?.extensions).toEqual({ code: 'FORBIDDEN' });
    expect(access?.denial(box, box.getFields().id!)).toBeNull();
  });
});

describe('execution with access: roles, scopes, authentication and multi-factor sign-in', () => {
  it('needs every scope of a rule, and names them', () => {
    const source = '{ report fullReport }';
    expect(runAs(schema, source, caller([], { scopes: ['reports:read'] }))).toEqual({
      data: { report: 'report', fullReport: null },
      errors: [forbidden('Access to Query.fullReport requires the scopes reports:read, reports:export.', source, 'fullReport', ['fullReport'])],
    });
    expect(runAs(schema, source, caller([]))).toEqual({
      data: { report: null, fullReport: null },
      errors: [
        forbidden('Access to Query.report requires the scope reports:read.', source, 'report', ['report']),
        forbidden('Access to Query.fullReport requires the scopes reports:read, reports:export.', source, 'fullReport', ['fullReport']),
      ],
    });
    expect(runAs(schema, source, caller([], { scopes: ['reports:export', 'reports:read'] }))).toEqual({
      data: { report: 'report', fullReport: 'full report' },
    });
  });

  it('lets in a caller with any one of the roles, and names them all otherwise', () => {
    const source = '{ staffNote }';
    expect(runAs(schema, source, AUDITOR)).toEqual({ data: { staffNote: 'staff' } });
    expect(runAs(schema, source, EDITOR)).toEqual({ data: { staffNote: 'staff' } });
    expect(runAs(schema, source, READER)).toEqual({
      data: { staffNote: null },
      errors: [forbidden('Access to Query.staffNote requires one of the roles editor, auditor.', source, 'staffNote', ['staffNote'])],
    });
  });

  it('lets any authenticated caller use a rule with no roles or scopes, and refuses the anonymous one', () => {
    const source = '{ me { name } }';
    expect(runAs(schema, source, caller([]))).toEqual({ data: { me: { name: 'Me' } } });
    expect(runAs(schema, source, caller([], { kind: 'jwt' }))).toEqual({ data: { me: { name: 'Me' } } });
    calls = [];
    expect(runAs(schema, source, ANONYMOUS)).toEqual({
      data: { me: null },
      errors: [forbidden('Access to Query.me requires an authenticated caller.', source, 'me', ['me'])],
    });
    expect(calls).toEqual([]);
  });

  it('tells the anonymous caller about the role or scope first, when the rule names one', () => {
    const source = '{ secret report }';
    expect(runAs(schema, source, ANONYMOUS)).toEqual({
      data: { secret: null, report: null },
      errors: [
        forbidden('Access to Query.secret requires the role admin.', source, 'secret', ['secret']),
        forbidden('Access to Query.report requires the scope reports:read.', source, 'report', ['report']),
      ],
    });
  });

  it('lets the anonymous caller use a public field', () => {
    expect(runAs(schema, '{ status hello }', ANONYMOUS)).toEqual({ data: { status: 'green', hello: 'world' } });
    expect(calls).toEqual(['Query.status', 'Query.hello']);
  });

  it('asks for multi-factor sign-in with MFA_REQUIRED, after the roles', () => {
    const source = '{ launchCodes sensitive }';
    const mfaMessage = (coordinate: string) =>
      `Access to ${coordinate} requires multi-factor authentication; sign in again with a second factor.`;
    expect(runAs(schema, source, ADMIN)).toEqual({
      data: { launchCodes: null, sensitive: null },
      errors: [
        { message: mfaMessage('Query.launchCodes'), locations: [at(source, 'launchCodes')], path: ['launchCodes'], extensions: { code: 'MFA_REQUIRED' } },
        { message: mfaMessage('Query.sensitive'), locations: [at(source, 'sensitive')], path: ['sensitive'], extensions: { code: 'MFA_REQUIRED' } },
      ],
    });
    expect(ErrorCode.MfaRequired).toBe('MFA_REQUIRED');
    expect(runAs(schema, source, caller(['editor'], { mfa: true }))).toEqual({
      data: { launchCodes: null, sensitive: 'sensitive' },
      errors: [forbidden('Access to Query.launchCodes requires the role admin.', source, 'launchCodes', ['launchCodes'])],
    });
    expect(runAs(schema, source, ANONYMOUS)).toEqual({
      data: { launchCodes: null, sensitive: null },
      errors: [
        forbidden('Access to Query.launchCodes requires the role admin.', source, 'launchCodes', ['launchCodes']),
        forbidden('Access to Query.sensitive requires an authenticated caller.', source, 'sensitive', ['sensitive']),
      ],
    });
    expect(runAs(schema, source, caller(['admin'], { mfa: true }))).toEqual({ data: { launchCodes: '0000', sensitive: 'sensitive' } });
  });

  it('follows role inheritance: admin includes editor includes reader, and not the other way', () => {
    const source = '{ readersDigest editorsNote secret }';
    expect(runAs(schema, source, ADMIN)).toEqual({ data: { readersDigest: 'digest', editorsNote: 'note', secret: 'the secret' } });
    expect(runAs(schema, source, EDITOR)).toEqual({
      data: { readersDigest: 'digest', editorsNote: 'note', secret: null },
      errors: [forbidden('Access to Query.secret requires the role admin.', source, 'secret', ['secret'])],
    });
    expect(runAs(schema, source, READER)).toEqual({
      data: { readersDigest: 'digest', editorsNote: null, secret: null },
      errors: [
        forbidden('Access to Query.editorsNote requires the role editor.', source, 'editorsNote', ['editorsNote']),
        forbidden('Access to Query.secret requires the role admin.', source, 'secret', ['secret']),
      ],
    });
    expect(runAs(schema, source, AUDITOR)).toEqual({
      data: { readersDigest: null, editorsNote: null, secret: null },
      errors: [
        forbidden('Access to Query.readersDigest requires the role reader.', source, 'readersDigest', ['readersDigest']),
        forbidden('Access to Query.editorsNote requires the role editor.', source, 'editorsNote', ['editorsNote']),
        forbidden('Access to Query.secret requires the role admin.', source, 'secret', ['secret']),
      ],
    });
  });

  it('lets a role the schema does not declare stand alone, granting nothing declared', () => {
    const source = '{ readersDigest }';
    expect(runAs(schema, source, caller(['stranger']))).toEqual({
      data: { readersDigest: null },
      errors: [forbidden('Access to Query.readersDigest requires the role reader.', source, 'readersDigest', ['readersDigest'])],
    });
  });

  it('never denies __typename, not even on a type the caller may not use', () => {
    const ruled = makeSchema({ typeDefs: 'type Query @auth(roles: ["admin"]) { a: String }', roles: ['admin'] });
    expect(runAs(ruled, '{ __typename }', ANONYMOUS)).toEqual({ data: { __typename: 'Query' } });
    const source = '{ anything { __typename } things { __typename } }';
    expect(runAs(schema, source, ANONYMOUS)).toEqual({
      data: { anything: { __typename: 'Vault' }, things: [{ __typename: 'Vault' }, { __typename: 'Box' }] },
    });
  });

  it('does not count denied fields in extensions.cost.actual', () => {
    const source = '{ cheap costly }';
    expect(runAs(schema, source, ADMIN, { measureCost: true })).toEqual({
      data: { cheap: 'cheap', costly: 'costly' },
      extensions: { cost: { actual: 7 } },
    });
    expect(runAs(schema, source, READER, { measureCost: true })).toEqual({
      data: { cheap: 'cheap', costly: null },
      errors: [forbidden('Access to Query.costly requires the role admin.', source, 'costly', ['costly'])],
      extensions: { cost: { actual: 2 } },
    });
    expect(runAs(schema, '{ profiles { name } vault { id } }', READER, { measureCost: true }).extensions).toEqual({ cost: { actual: 1 } });
  });
});

describe('execution with access: mutations', () => {
  it('does not run a denied mutation field, and still runs the serial fields after it', () => {
    const source = 'mutation { first: bump second: wipe third: bump }';
    expect(runAs(schema, source, READER)).toEqual({
      data: { first: 1, second: null, third: 2 },
      errors: [forbidden('Access to Mutation.wipe requires the role admin.', source, 'second', ['second'])],
    });
    expect(calls).toEqual(['Mutation.bump', 'Mutation.bump']);
  });

  it('runs the same mutation, in order, for a caller with the role', () => {
    expect(runAs(schema, 'mutation { first: bump second: wipe third: bump }', ADMIN)).toEqual({ data: { first: 1, second: 0, third: 1 } });
    expect(calls).toEqual(['Mutation.bump', 'Mutation.wipe', 'Mutation.bump']);
  });

  it('stops at a denied Non-Null mutation field: data is null and later fields do not run', () => {
    const source = 'mutation { first: bump second: wipeStrict third: bump }';
    expect(runAs(schema, source, READER)).toEqual({
      data: null,
      errors: [forbidden('Access to Mutation.wipeStrict requires the role admin.', source, 'second', ['second'])],
    });
    expect(calls).toEqual(['Mutation.bump']);
  });
});

describe('execution without access: the drop-in behaviour', () => {
  it('runs every field when execute gets no access', () => {
    const source = '{ secret profile { email ssn } vault { id } }';
    expect(runAs(schema, source, null)).toEqual({
      data: { secret: 'the secret', profile: { email: 'ada@example.com', ssn: 'ssn-Ada' }, vault: { id: 'v1' } },
    });
    expect(calls).toEqual(['Query.secret', 'Query.profile', 'Profile.email', 'Profile.ssn', 'Query.vault']);
    const mutation = parse('mutation { wipe }');
    expect(execute({ schema, document: mutation, access: null })).toEqual({ data: { wipe: 0 } });
  });

  it('returns null from accessFor for a schema with no rules (even with roles declared), so nothing is checked', () => {
    const plain = makeSchema({ typeDefs: 'type Query { a: String }', resolvers: { Query: { a: () => 'A' } } });
    expect(accessFor(plain, ANONYMOUS)).toBeNull();
    expect(accessFor(plain, ADMIN)).toBeNull();
    expect(accessFor(makeSchema({ typeDefs: 'type Query { a: String }', roles: ['admin'] }), ADMIN)).toBeNull();
    expect(runAs(plain, '{ a }', ANONYMOUS)).toEqual({ data: { a: 'A' } });
  });
});

// ---------------------------------------------------------------------------------------------
// 3. Planning per grant
// ---------------------------------------------------------------------------------------------

describe('planning per grant', () => {
  it('gives callers with the same grants the same access object, whoever they are', () => {
    const a = caller(['reader', 'auditor'], { id: 'alice', kind: 'apiKey', scopes: ['x', 'y'] });
    const b = caller(['auditor', 'reader', 'reader'], { id: 'bob', kind: 'jwt', scopes: ['y', 'x'] });
    expect(accessFor(schema, a)).not.toBeNull();
    expect(accessFor(schema, a)).toBe(accessFor(schema, b));
    expect(accessFor(schema, a)).toBe(accessFor(schema, a));
  });

  it('counts the roles a role includes: admin and admin+editor are the same grant', () => {
    expect(accessFor(schema, caller(['admin']))).toBe(accessFor(schema, caller(['admin', 'editor', 'reader'], { id: 'other' })));
  });

  it('gives different grants different access objects', () => {
    const base = accessFor(schema, caller(['reader']));
    expect(accessFor(schema, caller(['editor']))).not.toBe(base);
    expect(accessFor(schema, caller(['reader'], { scopes: ['x'] }))).not.toBe(base);
    expect(accessFor(schema, caller(['reader'], { mfa: true }))).not.toBe(base);
    expect(accessFor(schema, caller([]))).not.toBe(accessFor(schema, ANONYMOUS));
    expect(accessFor(buildMain(), caller(['reader']))).not.toBe(base);
  });

  it('plans an operation once per access object: the same plan for the same access', () => {
    const document = parse('{ hello secret }');
    const plan = planOperation(schema, document, null);
    expect(plan).toBeInstanceOf(OperationPlan);
    const operation = plan as OperationPlan;
    const readerAccess = accessFor(schema, READER);
    const adminAccess = accessFor(schema, ADMIN);
    const forReader = operation.forAccess(readerAccess);
    expect(forReader).not.toBe(operation);
    expect(forReader.access).toBe(readerAccess);
    expect(operation.forAccess(readerAccess)).toBe(forReader);
    expect(operation.forAccess(accessFor(schema, caller(['reader'], { id: 'someone else', kind: 'jwt' })))).toBe(forReader);
    expect(operation.forAccess(adminAccess)).not.toBe(forReader);
    expect(operation.forAccess(null)).toBe(operation);
    expect(operation.forAccess(undefined)).toBe(operation);
    expect(planOperation(schema, document, null)).toBe(operation);
  });

  it('decides each field when the plan is made: denied fields carry their error', () => {
    const operation = planOperation(schema, parse('{ hello secret }'), null) as OperationPlan;
    const denials = (plan: OperationPlan) => plan.root.fields?.map((field) => field.denial?.message ?? null);
    expect(denials(operation.forAccess(accessFor(schema, READER)))).toEqual([null, 'Access to Query.secret requires the role admin.']);
    expect(denials(operation.forAccess(accessFor(schema, ADMIN)))).toEqual([null, null]);
    expect(denials(operation)).toEqual([null, null]);
  });

  it('gives each caller its own answer when one document is executed for different grants in turn', () => {
    const document = parse('{ secret }');
    const expectedReader = {
      data: { secret: null },
      errors: [forbidden('Access to Query.secret requires the role admin.', '{ secret }', 'secret', ['secret'])],
    };
    for (let round = 0; round < 3; round++) {
      expect(wire(execute({ schema, document, access: accessFor(schema, ADMIN) }) as ExecutionResult)).toEqual({ data: { secret: 'the secret' } });
      expect(wire(execute({ schema, document, access: accessFor(schema, READER) }) as ExecutionResult)).toEqual(expectedReader);
      expect(wire(execute({ schema, document }) as ExecutionResult)).toEqual({ data: { secret: 'the secret' } });
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 4 and 5. Through createHandler
// ---------------------------------------------------------------------------------------------

const GRAPHQL_RESPONSE = 'application/graphql-response+json; charset=utf-8';
const JSON_RESPONSE = 'application/json; charset=utf-8';

const KEYS = {
  admin: { roles: ['admin'] },
  editor: { roles: ['editor'] },
  reader: { roles: ['reader'] },
  scoped: { roles: ['reader'], scopes: ['reports:read'] },
} as const;

type KeyName = keyof typeof KEYS;

function handler(options: Partial<HandlerOptions> = {}) {
  return createHandler({
    schema,
    production: false,
    reportCost: false,
    authenticate: [
      apiKeyAuth({
        keys: Object.entries(KEYS).map(([name, grants]) => ({ id: name, hash: hashApiKey(`${name}-key`), ...grants })),
      }),
    ],
    ...options,
  });
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: WireResult;
}

function request(
  handle: (request: PlainRequest) => HandlerResponse | Promise<HandlerResponse>,
  query: string,
  options: { key?: KeyName; accept?: string; variables?: Record<string, unknown> } = {},
): Answer {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: options.accept ?? 'application/graphql-response+json',
  };
  if (options.key !== undefined) headers['x-api-key'] = `${options.key}-key`;
  const answer = handle({
    method: 'POST',
    url: '/graphql',
    headers,
    body: JSON.stringify(options.variables === undefined ? { query } : { query, variables: options.variables }),
    raw: null,
  });
  expect(answer).not.toBeInstanceOf(Promise);
  const [body, init] = answer as HandlerResponse;
  return { status: init.status, headers: init.headers, body: JSON.parse(body as string) as WireResult };
}

/** A refusal of the whole operation: no data, one error per denied field, located, without a path. */
function refusal(message: string, source: string, text: string, nth = 0) {
  return { message, locations: [at(source, text, nth)], extensions: { code: 'FORBIDDEN' } };
}

describe('through createHandler, with API keys of different roles (onDenied: null, the default)', () => {
  it('answers a reader with the allowed data and a FORBIDDEN error for the denied field', () => {
    const handle = handler();
    const source = '{ hello secret }';
    expect(request(handle, source, { key: 'reader' })).toEqual({
      status: 200,
      headers: { 'content-type': GRAPHQL_RESPONSE },
      body: {
        errors: [forbidden('Access to Query.secret requires the role admin.', source, 'secret', ['secret'])],
        data: { hello: 'world', secret: null },
      },
    });
    expect(calls).toEqual(['Query.hello']);
  });

  it('sends no WWW-Authenticate challenge for a missing scope: the operation was answered', () => {
    const source = '{ report }';
    expect(request(handler(), source, { key: 'reader' })).toEqual({
      status: 200,
      headers: { 'content-type': GRAPHQL_RESPONSE },
      body: { errors: [forbidden('Access to Query.report requires the scope reports:read.', source, 'report', ['report'])], data: { report: null } },
    });
  });

  it('answers an admin with everything, and the anonymous caller with public fields only', () => {
    const handle = handler();
    expect(request(handle, '{ hello secret }', { key: 'admin' }).body).toEqual({ data: { hello: 'world', secret: 'the secret' } });
    const source = '{ status me { name } }';
    expect(request(handle, source).body).toEqual({
      errors: [forbidden('Access to Query.me requires an authenticated caller.', source, 'me', ['me'])],
      data: { status: 'green', me: null },
    });
  });

  it('answers each key with its own grants when the same request text comes again and again', () => {
    const handle = handler();
    const source = '{ editorsNote }';
    const refused = {
      errors: [forbidden('Access to Query.editorsNote requires the role editor.', source, 'editorsNote', ['editorsNote'])],
      data: { editorsNote: null },
    };
    for (let round = 0; round < 3; round++) {
      expect(request(handle, source, { key: 'editor' }).body).toEqual({ data: { editorsNote: 'note' } });
      expect(request(handle, source, { key: 'reader' }).body).toEqual(refused);
      expect(request(handle, source, { key: 'admin' }).body).toEqual({ data: { editorsNote: 'note' } });
      expect(request(handle, source).body).toEqual(refused);
    }
    expect(calls.filter((call) => call === 'Query.editorsNote')).toHaveLength(6);
  });

  it('reports the cost of the fields that ran only', () => {
    const handle = handler({ reportCost: true });
    expect(request(handle, '{ cheap costly }', { key: 'reader' }).body.extensions).toEqual({ cost: { requested: 7, actual: 2, limit: 1000 } });
    expect(request(handle, '{ cheap costly }', { key: 'admin' }).body.extensions).toEqual({ cost: { requested: 7, actual: 7, limit: 1000 } });
  });
});

describe("onDenied: 'reject' — a denied field anywhere refuses the whole operation", () => {
  const reject = () => handler({ onDenied: 'reject' });

  it('answers 403 with the errors and no data under application/graphql-response+json, running no resolver', () => {
    const source = '{ hello secret }';
    expect(request(reject(), source, { key: 'reader' })).toEqual({
      status: 403,
      headers: { 'content-type': GRAPHQL_RESPONSE },
      body: { errors: [refusal('Access to Query.secret requires the role admin.', source, 'secret')] },
    });
    expect(calls).toEqual([]);
  });

  it('answers 200 with the same body under application/json', () => {
    const source = '{ hello secret }';
    expect(request(reject(), source, { key: 'reader', accept: 'application/json' })).toEqual({
      status: 200,
      headers: { 'content-type': JSON_RESPONSE },
      body: { errors: [refusal('Access to Query.secret requires the role admin.', source, 'secret')] },
    });
    expect(calls).toEqual([]);
  });

  it('runs an allowed operation normally', () => {
    expect(request(reject(), '{ hello secret }', { key: 'admin' })).toEqual({
      status: 200,
      headers: { 'content-type': GRAPHQL_RESPONSE },
      body: { data: { hello: 'world', secret: 'the secret' } },
    });
    expect(request(reject(), '{ hello status }')).toEqual({
      status: 200,
      headers: { 'content-type': GRAPHQL_RESPONSE },
      body: { data: { hello: 'world', status: 'green' } },
    });
  });

  it('finds denied fields inside named fragments', () => {
    const source = 'query { hello ...Private } fragment Private on Query { profile { email } }';
    expect(request(reject(), source, { key: 'reader' })).toMatchObject({
      status: 403,
      body: { errors: [refusal('Access to Profile.email requires the role admin.', source, 'email')] },
    });
    expect(calls).toEqual([]);
  });

  it('finds denied fields in inline fragments on abstract types, on each possible type', () => {
    const source = '{ things { id ... on Box { label } ... on Vault { secret } } }';
    expect(request(reject(), source, { key: 'reader' })).toEqual({
      status: 403,
      headers: {
        'content-type': GRAPHQL_RESPONSE,
        'www-authenticate':
          'Bearer realm="graphql", error="insufficient_scope", error_description="The credential lacks scopes this operation needs.", scope="vault:read"',
      },
      body: {
        errors: [
          refusal('Access to Vault requires the role admin.', source, 'id'),
          refusal('Access to Vault.secret requires the scope vault:read.', source, 'secret'),
        ],
      },
    });
    expect(calls).toEqual([]);
  });

  it('finds denied fields nested deep in selections, and in mutations, running nothing', () => {
    const nested = '{ hello viewer { account { id balance } } }';
    expect(request(reject(), nested, { key: 'editor' }).body).toEqual({
      errors: [refusal('Access to Account.balance requires the role admin.', nested, 'balance')],
    });
    const mutation = 'mutation { bump wipe }';
    expect(request(reject(), mutation, { key: 'reader' })).toEqual({
      status: 403,
      headers: { 'content-type': GRAPHQL_RESPONSE },
      body: { errors: [refusal('Access to Mutation.wipe requires the role admin.', mutation, 'wipe')] },
    });
    expect(calls).toEqual([]);
    expect(counter).toBe(0);
  });

  it('reports each denied field coordinate once, at its first use, in the order met', () => {
    const source = '{ a: secret profiles { email name } b: secret profile { email } editorsNote }';
    expect(request(reject(), source, { key: 'reader' }).body).toEqual({
      errors: [
        refusal('Access to Query.secret requires the role admin.', source, 'a: secret'),
        refusal('Access to Profile.email requires the role admin.', source, 'email'),
        refusal('Access to Query.editorsNote requires the role editor.', source, 'editorsNote'),
      ],
    });
  });

  it('does not count a field under @skip(if: true) or @include(if: false) written as literals', () => {
    expect(request(reject(), '{ hello secret @skip(if: true) profile @include(if: false) { email } }', { key: 'reader' })).toEqual({
      status: 200,
      headers: { 'content-type': GRAPHQL_RESPONSE },
      body: { data: { hello: 'world' } },
    });
    expect(request(reject(), '{ hello ... on Query @skip(if: true) { secret } }', { key: 'reader' }).body).toEqual({ data: { hello: 'world' } });
  });

  it('counts a field whose @skip reads a variable, whatever the variable says', () => {
    const source = 'query ($skip: Boolean!) { hello secret @skip(if: $skip) }';
    expect(request(reject(), source, { key: 'reader', variables: { skip: true } })).toEqual({
      status: 403,
      headers: { 'content-type': GRAPHQL_RESPONSE },
      body: { errors: [refusal('Access to Query.secret requires the role admin.', source, 'secret')] },
    });
  });

  it('challenges with insufficient_scope and the scopes wanted when a scope is missing', () => {
    const source = '{ report fullReport }';
    expect(request(reject(), source, { key: 'scoped' })).toEqual({
      status: 403,
      headers: {
        'content-type': GRAPHQL_RESPONSE,
        'www-authenticate':
          'Bearer realm="graphql", error="insufficient_scope", error_description="The credential lacks scopes this operation needs.", scope="reports:read reports:export"',
      },
      body: { errors: [refusal('Access to Query.fullReport requires the scopes reports:read, reports:export.', source, 'fullReport')] },
    });
    const single = '{ report }';
    expect(request(handler({ onDenied: 'reject', realm: 'books' }), single, { key: 'reader' }).headers).toEqual({
      'content-type': GRAPHQL_RESPONSE,
      'www-authenticate':
        'Bearer realm="books", error="insufficient_scope", error_description="The credential lacks scopes this operation needs.", scope="reports:read"',
    });
    expect(request(reject(), single, { key: 'scoped' }).body).toEqual({ data: { report: 'report' } });
  });

  it('lists in the challenge every scope the denied fields want', () => {
    const source = '{ report anything { ... on Vault { secret } } }';
    expect(request(reject(), source, { key: 'admin' })).toEqual({
      status: 403,
      headers: {
        'content-type': GRAPHQL_RESPONSE,
        'www-authenticate':
          'Bearer realm="graphql", error="insufficient_scope", error_description="The credential lacks scopes this operation needs.", scope="reports:read vault:read"',
      },
      body: {
        errors: [
          refusal('Access to Query.report requires the scope reports:read.', source, 'report'),
          refusal('Access to Vault.secret requires the scope vault:read.', source, 'secret'),
        ],
      },
    });
  });

  it('refuses for a field denied on any type the selection could meet, whatever the data holds', () => {
    // Query.anything could be a Box or a Vault; Vault.id is denied, so the operation is refused
    // before anything runs, even though a Box would have been allowed.
    const source = '{ anything { id } }';
    expect(request(reject(), source, { key: 'reader' })).toEqual({
      status: 403,
      headers: { 'content-type': GRAPHQL_RESPONSE },
      body: { errors: [refusal('Access to Vault requires the role admin.', source, 'id')] },
    });
    expect(calls).toEqual([]);
  });

  it('answers a refused GET with 403 and no ETag', () => {
    const source = '{ secret }';
    const answer = reject()({
      method: 'GET',
      url: `/graphql?${new URLSearchParams({ query: source }).toString()}`,
      // (x-graphql-csrf: the header CSRF prevention, on by default, asks of a GET.)
      headers: { accept: 'application/graphql-response+json', 'x-api-key': 'reader-key', 'x-graphql-csrf': '1' },
      body: null,
      raw: null,
    });
    expect(answer).toEqual([
      JSON.stringify({ errors: [refusal('Access to Query.secret requires the role admin.', source, 'secret')] }),
      { status: 403, headers: { 'content-type': GRAPHQL_RESPONSE } },
    ]);
  });

  it('in a batch, refuses only the operation with a denied field, the batch answered 200', async () => {
    const answer = await reject()({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', 'x-api-key': 'reader-key' },
      body: JSON.stringify([{ query: '{ hello }' }, { query: '{ secret }' }]),
      raw: null,
    });
    const [body, init] = answer;
    expect(init).toEqual({ status: 200, headers: { 'content-type': GRAPHQL_RESPONSE } });
    expect(JSON.parse(body as string)).toEqual([
      { data: { hello: 'world' } },
      { errors: [refusal('Access to Query.secret requires the role admin.', '{ secret }', 'secret')] },
    ]);
    expect(calls).toEqual(['Query.hello']);
  });

  it('sends no challenge when only roles are missing', () => {
    expect(request(reject(), '{ secret }', { key: 'scoped' }).headers).toEqual({ 'content-type': GRAPHQL_RESPONSE });
  });

  it('refuses and allows the same request text for each caller in turn (the cached ready path)', () => {
    const handle = reject();
    const source = '{ hello secret }';
    for (let round = 0; round < 3; round++) {
      expect(request(handle, source, { key: 'admin' })).toEqual({
        status: 200,
        headers: { 'content-type': GRAPHQL_RESPONSE },
        body: { data: { hello: 'world', secret: 'the secret' } },
      });
      expect(request(handle, source, { key: 'reader' })).toEqual({
        status: 403,
        headers: { 'content-type': GRAPHQL_RESPONSE },
        body: { errors: [refusal('Access to Query.secret requires the role admin.', source, 'secret')] },
      });
    }
    expect(calls).toEqual(['Query.hello', 'Query.secret', 'Query.hello', 'Query.secret', 'Query.hello', 'Query.secret']);
  });

  it("refuses an onDenied other than 'null' or 'reject'", () => {
    expect(() => handler({ onDenied: 'drop' as never })).toThrow(new TypeError("onDenied must be 'null' or 'reject', got drop."));
  });
});

describe('introspection: { roles } — only callers with one of the roles may introspect', () => {
  const INTROSPECTION = '{ __schema { queryType { name } } }';
  const introspective = () => handler({ introspection: { roles: ['admin'] } });
  /** graphql-js's own errors for this document under its no-introspection rule. */
  const refused = () =>
    validate(schema, parse(INTROSPECTION), [NoSchemaIntrospectionCustomRule]).map((error) => ({
      message: error.message,
      locations: error.locations,
      extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
    }));

  it('lets an admin introspect', () => {
    expect(request(introspective(), INTROSPECTION, { key: 'admin' })).toEqual({
      status: 200,
      headers: { 'content-type': GRAPHQL_RESPONSE },
      body: { data: { __schema: { queryType: { name: 'Query' } } } },
    });
  });

  it("answers everyone else with graphql-js's validation errors, coded GRAPHQL_VALIDATION_FAILED", () => {
    const expected = refused();
    expect(expected.map((error) => error.message)).toEqual([
      'GraphQL introspection has been disabled, but the requested query contained the field "__schema".',
      'GraphQL introspection has been disabled, but the requested query contained the field "queryType".',
    ]);
    for (const key of ['reader', 'editor', undefined] as const) {
      expect(request(introspective(), INTROSPECTION, key === undefined ? {} : { key })).toEqual({
        status: 400,
        headers: { 'content-type': GRAPHQL_RESPONSE },
        body: { errors: expected },
      });
    }
  });

  it('counts the roles a role includes', () => {
    const handle = handler({ introspection: { roles: ['editor'] } });
    expect(request(handle, INTROSPECTION, { key: 'admin' }).body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
    expect(request(handle, INTROSPECTION, { key: 'reader' }).body).toEqual({ errors: refused() });
  });

  it('does not count __typename as introspection', () => {
    expect(request(introspective(), '{ __typename }', { key: 'reader' }).body).toEqual({ data: { __typename: 'Query' } });
  });

  it('keeps giving each caller its own answer when the same body alternates between admin and reader', () => {
    const handle = introspective();
    for (let round = 0; round < 4; round++) {
      expect(request(handle, INTROSPECTION, { key: 'admin' }).body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
      expect(request(handle, INTROSPECTION, { key: 'reader' })).toEqual({
        status: 400,
        headers: { 'content-type': GRAPHQL_RESPONSE },
        body: { errors: refused() },
      });
    }
  });

  it('keeps the answers apart on a schema without any rule, where every caller has the same (null) access', () => {
    const open = makeSchema({ typeDefs: 'type Query { a: String }', roles: ['admin', 'reader'], resolvers: { Query: { a: () => 'A' } } });
    const handle = handler({ schema: open, introspection: { roles: ['admin'] } });
    for (let round = 0; round < 3; round++) {
      expect(request(handle, INTROSPECTION, { key: 'admin' }).body).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
      expect(request(handle, INTROSPECTION, { key: 'reader' }).status).toBe(400);
      expect(request(handle, INTROSPECTION).status).toBe(400);
    }
  });

  it('refuses introspection roles that are not a non-empty list of names', () => {
    expect(() => handler({ introspection: { roles: [] } })).toThrow(
      new TypeError('introspection.roles must be a non-empty list of role names, got an array.'),
    );
  });
});
