/**
 * The fourth resolver argument (`info`): graphql-js's `GraphQLResolveInfo`.
 *
 * graphql-js allocates a ten-member object for every field it resolves. Nearly every member is
 * fixed by the plan (field name, nodes, types) or by the request (schema, fragments, root value,
 * operation, variables), so ours holds three references and reads the rest through getters;
 * the path of a leaf field is only built if the resolver asks for it.
 */
import type {
  FieldNode,
  GraphQLObjectType,
  GraphQLOutputType,
  GraphQLResolveInfo,
  GraphQLSchema,
  OperationDefinitionNode,
} from 'graphql';
import type { FieldPlan } from './plan.ts';
import type { Fragments } from '../language/collectFields.ts';
import { fieldPath } from './path.ts';
import type { ResponsePath } from './path.ts';

/** What `info` needs to know about the request it belongs to. */
export interface RequestScope {
  readonly schema: GraphQLSchema;
  readonly fragments: Fragments;
  readonly rootValue: unknown;
  readonly operation: OperationDefinitionNode;
  readonly variableValues: Record<string, unknown>;
}

export class ResolveInfo implements GraphQLResolveInfo {
  private readonly request: RequestScope;
  private readonly field: FieldPlan;
  private readonly parentPath: ResponsePath | undefined;
  private fieldPath: ResponsePath | undefined;

  constructor(request: RequestScope, field: FieldPlan, parentPath: ResponsePath | undefined, path: ResponsePath | undefined) {
    this.request = request;
    this.field = field;
    this.parentPath = parentPath;
    this.fieldPath = path;
  }

  get fieldName(): string {
    return this.field.fieldName;
  }
  get fieldNodes(): ReadonlyArray<FieldNode> {
    return this.field.fieldNodes;
  }
  get returnType(): GraphQLOutputType {
    return this.field.returnType;
  }
  get parentType(): GraphQLObjectType {
    return this.field.parentType;
  }
  get path(): ResponsePath {
    return (this.fieldPath ??= fieldPath(this.field, this.parentPath));
  }
  get schema(): GraphQLSchema {
    return this.request.schema;
  }
  get fragments(): Fragments {
    return this.request.fragments;
  }
  get rootValue(): unknown {
    return this.request.rootValue;
  }
  get operation(): OperationDefinitionNode {
    return this.request.operation;
  }
  get variableValues(): Record<string, unknown> {
    return this.request.variableValues;
  }
}
