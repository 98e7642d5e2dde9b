/**
 * GetFieldDef: the definition a field node names on an object type. The meta-fields `__schema`
 * and `__type` exist only on the query root; `__typename` exists everywhere.
 */
import { SchemaMetaFieldDef, TypeMetaFieldDef, TypeNameMetaFieldDef } from 'graphql';
import type { GraphQLField, GraphQLObjectType, GraphQLSchema } from 'graphql';

export function fieldDefinition(
  schema: GraphQLSchema,
  parentType: GraphQLObjectType,
  name: string,
): GraphQLField<unknown, unknown> | undefined {
  if (name === SchemaMetaFieldDef.name && schema.getQueryType() === parentType) return SchemaMetaFieldDef;
  if (name === TypeMetaFieldDef.name && schema.getQueryType() === parentType) return TypeMetaFieldDef;
  if (name === TypeNameMetaFieldDef.name) return TypeNameMetaFieldDef;
  return parentType.getFields()[name];
}
