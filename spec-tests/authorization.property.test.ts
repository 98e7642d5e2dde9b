/**
 * The law of field-level authorization, checked on random operations, random rules and random
 * callers:
 *
 *   for random operations over a fixture schema with random rules and random role sets, no
 *   denied field's resolver ever runs, every allowed field's does, and the response equals
 *   graphql-js's on the allowed part.
 *
 * How. For each run: random `permissions` (types, interfaces and fields of the fixture, each with
 * a random rule: roles from a small declared hierarchy, scopes, mfa, any authenticated caller, or
 * public) and a random caller (anonymous, or signed in with random roles, an undeclared role now
 * and then, random scopes, mfa or not). Our schema is makeSchema({ incremental: false, typeDefs, resolvers,
 * roles, permissions, strictMutations: false }), executed with `access: accessFor(schema, caller)`.
 * The reference is graphql-js's `execute` on the same SDL and resolvers, where every field the
 * caller is denied gets a resolver throwing the very GraphQLError our engine reports (FORBIDDEN
 * or MFA_REQUIRED). Which fields are denied, and with what message, is worked out here from the
 * rules' documented meaning (security/rules.ts), independently of access.ts, and checked against
 * `accessFor(...).denial` for every field of the schema.
 *
 * Every original resolver is wrapped to note the response path where it ran; in half the runs
 * every field without a resolver gets a wrapper too (a default property read, noted), in the
 * other half those fields are left as plain reads, which our executor takes its shortcut for.
 * Then: the two results are the same JSON; the same resolvers ran at the same paths; and none ran
 * at a denied field. The same operation also goes through the operation pipeline with
 * `onDenied: 'reject'`: whenever the caller met a denied field above, it is refused before any
 * resolver runs, with one located error per denied field (each a refusal some denied field gives);
 * when it is not refused, its answer is the one above.
 *
 * A denied field's arguments are not coerced by our engine (the field is refused before its
 * resolver would be called, so an argument error cannot mask the refusal); graphql-js coerces
 * arguments before calling any resolver, so in the reference the denied fields' argument
 * definitions are removed after the schema was validated, and the refusal comes first there too.
 *
 * Only synchronous schemas are used, so that no ordering of asynchronous errors is involved:
 * the `cost` fixture as it is, and the SDL of the `starwars` and `bank` fixtures with
 * synchronous resolvers written here (the same data and behaviour, without the awaits).
 *
 * Runs per fixture: AUTHZ_RUNS (default 250). To replay a failure, set AUTHZ_SEED (and
 * AUTHZ_PATH) to what fast-check printed.
 */
import fc from 'fast-check';
import {
  GraphQLError,
  assertValidSchema,
  defaultFieldResolver,
  execute as referenceExecute,
  getNamedType,
  isEnumType,
  isInterfaceType,
  isObjectType,
  isScalarType,
  isSpecifiedScalarType,
  isUnionType,
  parse,
  validate,
} from 'graphql';
import type {
  ExecutionResult,
  GraphQLField,
  GraphQLFieldResolver,
  GraphQLIsTypeOfFn,
  GraphQLObjectType,
  GraphQLResolveInfo,
  GraphQLSchema,
  GraphQLTypeResolver,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { fixtureByName } from '../fixtures/index.ts';
import { ANONYMOUS, accessFor, createPipeline, execute, makeIdentity, makeSchema } from '../src/index.ts';
import type { AuthRule, Identity, Limits, Permissions, Resolvers } from '../src/index.ts';
import { arbitraryOperation, describeOperation } from './support/arbitraryOperation.ts';
import type { GeneratedOperation } from './support/arbitraryOperation.ts';

const RUNS = Number(process.env.AUTHZ_RUNS ?? 250);
const SEED = process.env.AUTHZ_SEED === undefined ? undefined : Number(process.env.AUTHZ_SEED);
const PATH = process.env.AUTHZ_PATH;

/** The pipeline's limits, all off: only authorization may refuse an operation here. */
const NO_LIMITS: Partial<Limits> = { depth: false, cost: false, nodes: false, aliases: false, directives: false, tokens: false, documentLength: false };

/** Fixtures read some Int arguments as counts: Ints stay small, as in the differential test. */
const OPERATIONS = { intRange: [-2, 6] } as const;

// ---------------------------------------------------------------------------------------------
// Roles, scopes, rules and callers
// ---------------------------------------------------------------------------------------------

/** The declared roles: admin includes editor, which includes reader; auditor stands alone. */
const ROLES: Readonly<Record<string, ReadonlyArray<string>>> = { admin: ['editor'], editor: ['reader'], reader: [], auditor: [] };
const ROLE_NAMES = Object.keys(ROLES);
const SCOPES = ['read', 'write', 'audit'];

/** A role with every role it includes, itself too; a role not declared stands alone. */
function expandRole(role: string): Set<string> {
  const closure = new Set([role]);
  const pending = [role];
  while (pending.length > 0) {
    for (const included of ROLES[pending.pop() as string] ?? []) {
      if (!closure.has(included)) {
        closure.add(included);
        pending.push(included);
      }
    }
  }
  return closure;
}

const arbitraryRule: fc.Arbitrary<AuthRule> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ roles: fc.subarray(ROLE_NAMES, { minLength: 1, maxLength: 2 }) }) },
  {
    weight: 3,
    arbitrary: fc.record(
      {
        roles: fc.subarray(ROLE_NAMES, { minLength: 1, maxLength: 2 }),
        scopes: fc.subarray(SCOPES, { minLength: 1, maxLength: 2 }),
        mfa: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.constant({ public: true }) },
);

interface Caller {
  readonly anonymous: boolean;
  readonly roles: ReadonlyArray<string>;
  readonly scopes: ReadonlyArray<string>;
  readonly mfa: boolean;
}

/** One caller in six is anonymous; the others hold up to two roles (now and then one not declared), scopes, and mfa or not. */
const arbitraryCaller: fc.Arbitrary<Caller> = fc.oneof(
  { weight: 1, arbitrary: fc.constant<Caller>({ anonymous: true, roles: [], scopes: [], mfa: false }) },
  {
    weight: 5,
    arbitrary: fc.record({
      anonymous: fc.constant(false),
      roles: fc.subarray([...ROLE_NAMES, 'stranger'], { maxLength: 2 }),
      scopes: fc.subarray(SCOPES),
      mfa: fc.boolean(),
    }),
  },
);

function identityOf(caller: Caller): Identity {
  if (caller.anonymous) return ANONYMOUS;
  return makeIdentity({ id: 'caller', kind: 'jwt', roles: caller.roles, scopes: caller.scopes, mfa: caller.mfa, expiresAt: null, claims: {} });
}

// ---------------------------------------------------------------------------------------------
// The expected verdicts, from the rules' documented meaning
// ---------------------------------------------------------------------------------------------

interface Refusal {
  readonly message: string;
  readonly code: 'FORBIDDEN' | 'MFA_REQUIRED';
}

/** Why the rule refuses the caller, or null when it lets them in (security/rules.ts, the table at the top). */
function refusalOf(rule: AuthRule, coordinate: string, caller: Caller): Refusal | null {
  if (rule.public === true) return null;
  const roles = rule.roles ?? [];
  const scopes = rule.scopes ?? [];
  const held = new Set(caller.roles.flatMap((role) => [...expandRole(role)]));
  if (roles.length > 0 && !roles.some((role) => held.has(role))) {
    const needed = roles.length === 1 ? `the role ${roles[0]}` : `one of the roles ${roles.join(', ')}`;
    return { message: `Access to ${coordinate} requires ${needed}.`, code: 'FORBIDDEN' };
  }
  if (scopes.some((scope) => !caller.scopes.includes(scope))) {
    const needed = scopes.length === 1 ? `the scope ${scopes[0]}` : `the scopes ${scopes.join(', ')}`;
    return { message: `Access to ${coordinate} requires ${needed}.`, code: 'FORBIDDEN' };
  }
  if (caller.anonymous) return { message: `Access to ${coordinate} requires an authenticated caller.`, code: 'FORBIDDEN' };
  if (rule.mfa === true && !caller.mfa) {
    return {
      message: `Access to ${coordinate} requires multi-factor authentication; sign in again with a second factor.`,
      code: 'MFA_REQUIRED',
    };
  }
  return null;
}

/**
 * The first refusal among the rules that apply to a field of an object type: the field's own,
 * the same field of each interface the type implements, the type's and each interface's (unless
 * the field's own rule is public: that exempts it from them), and the rule of the object type
 * or interface the field returns. Meta fields are never ruled.
 */
function expectedRefusal(type: GraphQLObjectType, field: GraphQLField<unknown, unknown>, permissions: Permissions, caller: Caller): Refusal | null {
  if (field.name.startsWith('__')) return null;
  const own = `${type.name}.${field.name}`;
  const coordinates = [own];
  for (const implemented of type.getInterfaces()) {
    if (implemented.getFields()[field.name] !== undefined) coordinates.push(`${implemented.name}.${field.name}`);
  }
  if (permissions[own]?.public !== true) coordinates.push(type.name, ...type.getInterfaces().map((implemented) => implemented.name));
  const returned = getNamedType(field.type);
  if (isObjectType(returned) || isInterfaceType(returned)) coordinates.push(returned.name);
  for (const coordinate of coordinates) {
    const rule = Object.hasOwn(permissions, coordinate) ? permissions[coordinate] : undefined;
    const refusal = rule === undefined ? null : refusalOf(rule, coordinate, caller);
    if (refusal !== null) return refusal;
  }
  return null;
}

/** Every field of every object type: `Type.field` → the refusal, for the fields the caller is denied. */
function refusalsOf(schema: GraphQLSchema, permissions: Permissions, caller: Caller): Map<string, Refusal> {
  const refusals = new Map<string, Refusal>();
  for (const type of objectTypes(schema)) {
    for (const field of Object.values(type.getFields())) {
      const refusal = expectedRefusal(type, field, permissions, caller);
      if (refusal !== null) refusals.set(`${type.name}.${field.name}`, refusal);
    }
  }
  return refusals;
}

function objectTypes(schema: GraphQLSchema): GraphQLObjectType[] {
  return Object.values(schema.getTypeMap()).filter((type): type is GraphQLObjectType => isObjectType(type) && !type.name.startsWith('__'));
}

/** The coordinates rules may name: every object type and interface, and each of their fields. */
function coordinatesOf(schema: GraphQLSchema): string[] {
  const coordinates: string[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
    coordinates.push(type.name, ...Object.keys(type.getFields()).map((field) => `${type.name}.${field}`));
  }
  return coordinates;
}

// ---------------------------------------------------------------------------------------------
// Resolvers: taken from a built schema, wrapped to note where they ran
// ---------------------------------------------------------------------------------------------

type FieldResolver = GraphQLFieldResolver<unknown, unknown>;
type ResolverMap = Record<string, Record<string, unknown>>;

/** The resolvers of a schema made by makeSchema, as a resolver map makeSchema takes again. */
function resolversOf(schema: GraphQLSchema): ResolverMap {
  const map: ResolverMap = {};
  for (const type of Object.values(schema.getTypeMap())) {
    if (type.name.startsWith('__')) continue;
    const own: Record<string, unknown> = {};
    if (isObjectType(type)) {
      for (const field of Object.values(type.getFields())) if (field.resolve !== undefined) own[field.name] = field.resolve;
      if (type.isTypeOf != null) own.__isTypeOf = type.isTypeOf;
    } else if ((isInterfaceType(type) || isUnionType(type)) && type.resolveType != null) {
      own.__resolveType = type.resolveType;
    } else if (isEnumType(type)) {
      for (const value of type.getValues()) own[value.name] = value.value;
    } else if (isScalarType(type) && !isSpecifiedScalarType(type)) {
      map[type.name] = type as unknown as Record<string, unknown>;
      continue;
    }
    if (Object.keys(own).length > 0) map[type.name] = own;
  }
  return map;
}

/** Where a resolver ran: the response path, and the field it belongs to. */
interface Ran {
  readonly path: string;
  readonly coordinate: string;
}

/** The log of the execution under way (executions here are synchronous). */
let ran: Ran[] = [];

function pathOf(info: GraphQLResolveInfo): string {
  const keys: Array<string | number> = [];
  for (let node: GraphQLResolveInfo['path'] | undefined = info.path; node !== undefined; node = node.prev) keys.unshift(node.key);
  return keys.join('.');
}

function noting(coordinate: string, resolve: FieldResolver): FieldResolver {
  return (source, args, context, info) => {
    ran.push({ path: pathOf(info), coordinate });
    return resolve(source, args, context, info);
  };
}

/**
 * The resolver map for one side: each object field's resolver noted; in `everyField` mode the
 * fields without one get a noted default resolver; `refusals` (the reference's) replace the
 * denied fields' resolvers by one that throws the refusal.
 */
function wrappedResolvers(
  base: GraphQLSchema,
  original: ResolverMap,
  everyField: boolean,
  refusals: ReadonlyMap<string, Refusal> | null,
): Resolvers {
  const map: ResolverMap = { ...original };
  for (const type of objectTypes(base)) {
    const own: Record<string, unknown> = { ...(original[type.name] ?? {}) };
    for (const field of Object.values(type.getFields())) {
      const coordinate = `${type.name}.${field.name}`;
      const refusal = refusals?.get(coordinate);
      if (refusal !== undefined) {
        own[field.name] = () => {
          throw new GraphQLError(refusal.message, { extensions: { code: refusal.code } });
        };
        continue;
      }
      const resolve = own[field.name] as FieldResolver | undefined;
      if (resolve !== undefined) own[field.name] = noting(coordinate, resolve);
      else if (everyField) own[field.name] = noting(coordinate, defaultFieldResolver);
    }
    map[type.name] = own;
  }
  return map as Resolvers;
}

// ---------------------------------------------------------------------------------------------
// Synchronous schemas
// ---------------------------------------------------------------------------------------------

interface SyncFixture {
  readonly name: string;
  readonly typeDefs: string;
  /** The schema as built without rules: what operations are generated from, and where resolvers come from. */
  readonly schema: GraphQLSchema;
  /** Fresh context for one execution. */
  context(): unknown;
}

function costFixture(): SyncFixture {
  const fixture = fixtureByName('cost');
  const { schema } = fixture.run();
  return { name: 'cost', typeDefs: fixture.typeDefs, schema, context: () => fixture.run().contextValue };
}

/** The starwars fixture's SDL and data, every resolver synchronous. */
function starwarsFixture(): SyncFixture {
  type Kind = 'human' | 'droid' | 'starship' | 'planet';
  interface StarWarsRecord {
    kind: Kind;
    id: string;
    name: string;
    friends?: string[];
    appearsIn?: number[];
    homePlanet?: string | null;
    starships?: string[];
    heightMeters?: number;
    primaryFunction?: string;
    lengthMeters?: number;
    model?: string;
  }
  interface StarWarsContext {
    records: StarWarsRecord[];
  }
  const records = (): StarWarsRecord[] => [
    { kind: 'human', id: '1000', name: 'Luke Skywalker', friends: ['1002', '1003', '2000', '2001'], appearsIn: [4, 5, 6], homePlanet: 'Tatooine', starships: ['3000', '3003'], heightMeters: 1.72 },
    { kind: 'human', id: '1001', name: 'Darth Vader', friends: ['1004'], appearsIn: [4, 5, 6], homePlanet: 'Tatooine', starships: ['3002'], heightMeters: 2.02 },
    { kind: 'human', id: '1002', name: 'Han Solo', friends: ['1000', '1003', '2001'], appearsIn: [4, 5, 6], homePlanet: null, starships: ['3001'], heightMeters: 1.8 },
    { kind: 'human', id: '1003', name: 'Leia Organa', friends: ['1000', '1002', '2000', '2001'], appearsIn: [4, 5, 6], homePlanet: 'Alderaan', starships: [], heightMeters: 1.5 },
    { kind: 'human', id: '1004', name: 'Wilhuff Tarkin', friends: ['1001', '9999'], appearsIn: [4], homePlanet: null, starships: [], heightMeters: 1.8 },
    { kind: 'droid', id: '2000', name: 'C-3PO', friends: ['1000', '1002', '1003', '2001'], appearsIn: [4, 5, 6], primaryFunction: 'Protocol' },
    { kind: 'droid', id: '2001', name: 'R2-D2', friends: ['1000', '1002', '1003'], appearsIn: [4, 5, 6], primaryFunction: 'Astromech' },
    { kind: 'starship', id: '3000', name: 'X-Wing', lengthMeters: 12.5, model: 'T-65 X-wing' },
    { kind: 'starship', id: '3001', name: 'Millennium Falcon', lengthMeters: 34.37, model: 'YT-1300' },
    { kind: 'starship', id: '3002', name: 'TIE Advanced x1', lengthMeters: 9.2, model: 'Twin Ion Engine Advanced x1' },
    { kind: 'starship', id: '3003', name: 'Imperial shuttle', lengthMeters: 20, model: 'Lambda-class T-4a' },
    { kind: 'planet', id: '4000', name: 'Tatooine' },
  ];
  const find = (context: StarWarsContext, id: string) => context.records.find((record) => record.id === id) ?? null;
  const ofKind = (context: StarWarsContext, id: string, kind: Kind) => {
    const record = find(context, id);
    return record !== null && record.kind === kind ? record : null;
  };
  const typeNames: Record<Kind, string> = { human: 'Human', droid: 'Droid', starship: 'Starship', planet: 'Planet' };
  const typeName: GraphQLTypeResolver<StarWarsRecord, unknown> = (value) => typeNames[value.kind];
  const isKind = (kind: Kind): GraphQLIsTypeOfFn<StarWarsRecord, unknown> => (value) => value.kind === kind;
  const friends = (parent: StarWarsRecord, _args: unknown, context: StarWarsContext) => (parent.friends ?? []).map((id) => find(context, id));
  const typeDefs = fixtureByName('starwars').typeDefs;
  const schema = makeSchema({
    incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
    typeDefs,
    resolvers: {
      Episode: { NEWHOPE: 4, EMPIRE: 5, JEDI: 6 },
      LengthUnit: { METER: 1, FOOT: 3.28084 },
      Node: { __resolveType: typeName },
      Character: { __resolveType: typeName },
      Human: {
        __isTypeOf: isKind('human'),
        friends,
        starships: (parent: StarWarsRecord, _args: unknown, context: StarWarsContext) =>
          (parent.starships ?? []).map((id) => ofKind(context, id, 'starship')),
        height: (parent: StarWarsRecord, args: { unit: number }) => (parent.heightMeters ?? 0) * args.unit,
      },
      Droid: { __isTypeOf: isKind('droid'), friends },
      Starship: {
        __isTypeOf: isKind('starship'),
        length: (parent: StarWarsRecord, args: { unit: number }) => (parent.lengthMeters ?? 0) * args.unit,
      },
      Query: {
        hero: (_root: unknown, args: { episode?: number | null }, context: StarWarsContext) => find(context, args.episode === 5 ? '1000' : '2001'),
        character: (_root: unknown, args: { id: string }, context: StarWarsContext) => find(context, args.id),
        human: (_root: unknown, args: { id: string }, context: StarWarsContext) => ofKind(context, args.id, 'human'),
        droid: (_root: unknown, args: { id: string }, context: StarWarsContext) => ofKind(context, args.id, 'droid'),
        node: (_root: unknown, args: { id: string }, context: StarWarsContext) => find(context, args.id),
        search: (_root: unknown, args: { text: string }, context: StarWarsContext) =>
          context.records.filter((record) => record.kind !== 'planet' && record.name.toLowerCase().includes(args.text.toLowerCase())),
        characters: (_root: unknown, args: { ids: string[] }, context: StarWarsContext) =>
          args.ids.map((id) => {
            const record = find(context, id);
            return record?.kind === 'human' || record?.kind === 'droid' ? record : null;
          }),
        mystery: (_root: unknown, _args: unknown, context: StarWarsContext) => find(context, '4000'),
      },
    },
  });
  return { name: 'starwars (synchronous)', typeDefs, schema, context: (): StarWarsContext => ({ records: records() }) };
}

/** The bank fixture's SDL and behaviour (a counter, balances, a journal), every resolver synchronous. */
function bankFixture(): SyncFixture {
  interface Transaction {
    seq: number;
    kind: 'in' | 'out';
    amount: number;
    balanceAfter: number;
  }
  interface Account {
    id: string;
    owner: string;
    balance: number;
    history: Transaction[];
  }
  interface Bank {
    counter: number;
    nextSeq: number;
    accounts: Account[];
    journal: string[];
  }
  const accountById = (state: Bank, id: string): Account => {
    const account = state.accounts.find((candidate) => candidate.id === id);
    if (account === undefined) throw new Error(`No account has id "${id}".`);
    return account;
  };
  const post = (state: Bank, account: Account, kind: 'in' | 'out', amount: number): void => {
    if (kind === 'out' && account.balance < amount) {
      throw new Error(`Insufficient funds: account ${account.id} has ${account.balance}, cannot withdraw ${amount}.`);
    }
    account.balance += kind === 'in' ? amount : -amount;
    account.history.push({ seq: state.nextSeq, kind, amount, balanceAfter: account.balance });
    state.nextSeq += 1;
  };
  const bump = (state: Bank, by: number, name: string): number => {
    state.journal.push(`start ${name}(${by})`);
    state.counter += by;
    state.journal.push(`end ${name}(${by})`);
    return state.counter;
  };
  const typeDefs = fixtureByName('bank').typeDefs;
  const schema = makeSchema({
    incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
    typeDefs,
    resolvers: {
      TransactionKind: { DEPOSIT: 'in', WITHDRAWAL: 'out' },
      Account: {
        balance: (account: Account, _args: unknown, state: Bank) => {
          state.journal.push(`read ${account.id} = ${account.balance}`);
          return account.balance;
        },
      },
      Query: {
        counter: (_root: unknown, _args: unknown, state: Bank) => state.counter,
        account: (_root: unknown, args: { id: string }, state: Bank) => state.accounts.find((account) => account.id === args.id) ?? null,
        accounts: (_root: unknown, _args: unknown, state: Bank) => state.accounts,
        later: (_root: unknown, args: { value: string }) => args.value,
        laterList: (_root: unknown, args: { ticks: number[] }) => args.ticks,
      },
      Mutation: {
        increment: (_root: unknown, args: { by: number }, state: Bank) => bump(state, args.by, 'increment'),
        incrementLater: (_root: unknown, args: { by: number }, state: Bank) => bump(state, args.by, 'incrementLater'),
        incrementThenThrow: (_root: unknown, args: { by: number }, state: Bank) => {
          throw new Error(`Counter reached ${bump(state, args.by, 'incrementThenThrow')}, then the mutation failed.`);
        },
        incrementThenReject: (_root: unknown, args: { by: number }, state: Bank) => {
          throw new Error(`Counter reached ${bump(state, args.by, 'incrementThenReject')}, then the mutation rejected.`);
        },
        deposit: (_root: unknown, args: { accountId: string; amount: number }, state: Bank) => {
          state.journal.push(`deposit(${args.accountId}, ${args.amount})`);
          const account = accountById(state, args.accountId);
          post(state, account, 'in', args.amount);
          return account;
        },
        withdraw: (_root: unknown, args: { accountId: string; amount: number }, state: Bank) => {
          state.journal.push(`withdraw(${args.accountId}, ${args.amount})`);
          const account = accountById(state, args.accountId);
          post(state, account, 'out', args.amount);
          return account;
        },
        transfer: (_root: unknown, args: { input: { from: string; to: string; amount: number; memo: string } }, state: Bank) => {
          const { from, to, amount, memo } = args.input;
          state.journal.push(`transfer(${from} -> ${to}, ${amount})`);
          const source = accountById(state, from);
          post(state, source, 'out', amount);
          const target = accountById(state, to);
          post(state, target, 'in', amount);
          return { from: source, to: target, memo };
        },
        journal: (_root: unknown, _args: unknown, state: Bank) => [...state.journal],
      },
    },
  });
  const fresh = (): Bank => ({
    counter: 0,
    nextSeq: 1,
    accounts: [
      { id: 'a1', owner: 'Ada', balance: 100, history: [] },
      { id: 'a2', owner: 'Grace', balance: 50, history: [] },
    ],
    journal: [],
  });
  return { name: 'bank (synchronous)', typeDefs, schema, context: fresh };
}

// ---------------------------------------------------------------------------------------------
// One run
// ---------------------------------------------------------------------------------------------

interface Scenario {
  readonly permissions: Permissions;
  readonly caller: Caller;
  /** Whether fields without a resolver get a noted default resolver (else they stay plain reads). */
  readonly everyField: boolean;
  readonly operation: GeneratedOperation;
}

/** What the runs met, so that the property is known not to be vacuous. */
interface Coverage {
  runs: number;
  withDenials: number;
  withRefusedFieldsInResult: number;
  withAllowedResolvers: number;
  rejected: number;
}

function arbitraryScenario(fixture: SyncFixture): fc.Arbitrary<Scenario> {
  const coordinates = coordinatesOf(fixture.schema);
  // Rules on types and root fields reach the most operations: they are drawn more often.
  const types = coordinates.filter((coordinate) => !coordinate.includes('.'));
  const rootFields = coordinates.filter((coordinate) => /^(Query|Mutation)\./.test(coordinate));
  const arbitraryCoordinate = fc.oneof(
    { weight: 2, arbitrary: fc.constantFrom(...types) },
    { weight: 1, arbitrary: fc.constantFrom(...rootFields) },
    { weight: 3, arbitrary: fc.constantFrom(...coordinates) },
  );
  const arbitraryPermissions = fc
    .uniqueArray(fc.tuple(arbitraryCoordinate, arbitraryRule), { maxLength: 6, selector: ([coordinate]) => coordinate })
    .map((entries): Permissions => Object.fromEntries(entries));
  return fc.record({
    permissions: arbitraryPermissions,
    caller: arbitraryCaller,
    everyField: fc.boolean(),
    operation: arbitraryOperation(fixture.schema, OPERATIONS),
  });
}

function checkScenario(fixture: SyncFixture, scenario: Scenario, coverage: Coverage): void {
  const { permissions, caller, everyField, operation } = scenario;
  const document = parse(operation.document);
  const invalid = validate(fixture.schema, document);
  if (invalid.length > 0) throw new Error(`The generator produced an invalid operation:\n${invalid.map((error) => error.message).join('\n')}`);

  const original = resolversOf(fixture.schema);
  const ours = makeSchema({
    incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
    typeDefs: fixture.typeDefs,
    resolvers: wrappedResolvers(fixture.schema, original, everyField, null),
    roles: ROLES,
    permissions,
    strictMutations: false,
  });
  const identity = identityOf(caller);
  const access = accessFor(ours, identity);

  // The verdicts: worked out from the rules, and access.ts's agreeing with them on every field.
  const refusals = refusalsOf(ours, permissions, caller);
  if (Object.keys(permissions).length === 0) expect(access).toBeNull();
  for (const type of objectTypes(ours)) {
    for (const field of Object.values(type.getFields())) {
      const denial = access === null ? null : access.denial(type, field);
      const expected = refusals.get(`${type.name}.${field.name}`) ?? null;
      expect(denial === null ? null : { message: denial.message, code: denial.extensions['code'] }, `the verdict on ${type.name}.${field.name}`).toEqual(
        expected,
      );
    }
  }

  const reference = makeSchema({ incremental: false, typeDefs: fixture.typeDefs, resolvers: wrappedResolvers(fixture.schema, original, everyField, refusals) });
  assertValidSchema(reference);
  // graphql-js coerces a field's arguments before calling its resolver; ours refuses a denied
  // field first. Without argument definitions, the reference's denied fields coerce nothing.
  for (const type of objectTypes(reference)) {
    for (const field of Object.values(type.getFields())) {
      if (refusals.has(`${type.name}.${field.name}`)) (field as { args: GraphQLField<unknown, unknown>['args'] }).args = [];
    }
  }

  const common = { document, variableValues: operation.variables, operationName: operation.operationName };
  ran = [];
  const expected = referenceExecute({ schema: reference, ...common, contextValue: fixture.context() }) as ExecutionResult;
  const ranInReference = ran;
  ran = [];
  const actual = execute({ schema: ours, ...common, contextValue: fixture.context(), access });
  const ranInOurs = ran;
  ran = [];

  expect(expected).not.toBeInstanceOf(Promise);
  expect(actual).not.toBeInstanceOf(Promise);
  const report = () => `${describeOperation(operation)}\n\nreference: ${JSON.stringify(expected)}\nours:      ${JSON.stringify(actual)}`;

  const atDenied = ranInOurs.filter((entry) => refusals.has(entry.coordinate));
  expect(atDenied, `resolvers of denied fields ran\n${report()}`).toEqual([]);
  expect(JSON.stringify(actual), `the results differ\n${report()}`).toBe(JSON.stringify(expected));
  expect(ranInOurs.map(key).sort(), `the resolvers that ran differ\n${report()}`).toEqual(ranInReference.map(key).sort());

  // onDenied: 'reject' on the same operation: refused before anything runs whenever a field the
  // caller may not use was met above (and maybe more often: fields the data did not reach, and
  // fields under @skip/@include that read variables, count too); otherwise the same answer.
  const pipeline = createPipeline({
    schema: ours,
    onDenied: 'reject',
    limits: NO_LIMITS,
    production: false,
    reportCost: false,
    // The outcome is read synchronously below: long generated documents are validated here, not
    // in the validation worker (whose answer is a promise).
    validationThread: false,
    context: () => fixture.context(),
  });
  ran = [];
  const outcome = pipeline.run({
    params: { query: operation.document, operationName: operation.operationName ?? null, variables: operation.variables ?? null },
    identity,
    raw: null,
    readOnly: false,
  });
  const ranInPipeline = ran;
  ran = [];
  expect(outcome).not.toBeInstanceOf(Promise);
  if (outcome instanceof Promise || outcome.kind !== 'result') throw new Error('Expected a synchronous result.');
  // The cost analysis runs before authorization and refuses a list field missing its required
  // slicing argument (cost directives, not a limit that can be turned off): nothing to compare then.
  const slicing = /must be given exactly one of its slicing arguments/;
  if (outcome.denied === undefined && outcome.requestError && (outcome.result.errors ?? []).some((error) => slicing.test(error.message))) {
    for (const error of outcome.result.errors ?? []) expect(error.message).toMatch(slicing);
    expect(ranInPipeline).toEqual([]);
    return;
  }
  const refusedAbove = (actual as ExecutionResult).errors?.some((error) => coordinateOfError(error, refusals) !== '') ?? false;
  if (refusedAbove) expect(outcome.denied, `onDenied: 'reject' ran an operation with a denied field\n${report()}`).toBeDefined();
  if (outcome.denied !== undefined) {
    expect(ranInPipeline, `resolvers ran in a refused operation\n${report()}`).toEqual([]);
    expect('data' in outcome.result).toBe(false);
    const messages = new Set([...refusals.values()].map((refusal) => `${refusal.code} ${refusal.message}`));
    for (const error of outcome.result.errors ?? []) {
      expect(messages, `a refusal that is no denied field's\n${report()}`).toContain(`${String(error.extensions['code'])} ${error.message}`);
      expect(error.locations?.length).toBe(1);
      expect(error.path).toBeUndefined();
    }
    expect(outcome.result.errors?.length).toBeGreaterThan(0);
  } else {
    const shape = (result: ExecutionResult) =>
      JSON.stringify({ data: result.data, errors: result.errors?.map(({ message, path, locations }) => ({ message, path, locations })) });
    expect(shape(outcome.result), `onDenied: 'reject' answered differently\n${report()}`).toBe(shape(actual as ExecutionResult));
    expect(ranInPipeline.map(key).sort()).toEqual(ranInOurs.map(key).sort());
  }

  coverage.runs += 1;
  if (outcome.denied !== undefined) coverage.rejected += 1;
  if (refusals.size > 0) coverage.withDenials += 1;
  if ((expected.errors ?? []).some((error) => refusals.has(coordinateOfError(error, refusals)))) coverage.withRefusedFieldsInResult += 1;
  if (ranInOurs.length > 0) coverage.withAllowedResolvers += 1;
}

const key = (entry: Ran) => `${entry.path} (${entry.coordinate})`;

/** The coordinate whose refusal this error is, if it is one ('' otherwise). */
function coordinateOfError(error: GraphQLError, refusals: ReadonlyMap<string, Refusal>): string {
  for (const [coordinate, refusal] of refusals) {
    if (refusal.message === error.message && error.extensions['code'] === refusal.code) return coordinate;
  }
  return '';
}

// ---------------------------------------------------------------------------------------------
// The property
// ---------------------------------------------------------------------------------------------

describe('authorization law: denied resolvers never run, allowed ones do, and the rest is graphql-js', () => {
  for (const make of [costFixture, starwarsFixture, bankFixture]) {
    const fixture = make();
    it(`holds for random operations, rules and callers over ${fixture.name}`, () => {
      const coverage: Coverage = { runs: 0, withDenials: 0, withRefusedFieldsInResult: 0, withAllowedResolvers: 0, rejected: 0 };
      fc.assert(
        fc.property(arbitraryScenario(fixture), (scenario) => checkScenario(fixture, scenario, coverage)),
        { numRuns: RUNS, ...(SEED === undefined ? {} : { seed: SEED }), ...(PATH === undefined ? {} : { path: PATH }) },
      );
      // Not vacuous: callers were denied fields, met refusals in results, and ran resolvers.
      if (SEED === undefined && RUNS >= 100) {
        expect(coverage.withDenials / coverage.runs).toBeGreaterThan(0.4);
        expect(coverage.withRefusedFieldsInResult / coverage.runs).toBeGreaterThan(0.02);
        expect(coverage.withAllowedResolvers / coverage.runs).toBeGreaterThan(0.3);
        expect(coverage.rejected / coverage.runs).toBeGreaterThan(0.02);
      }
    });
  }
});
