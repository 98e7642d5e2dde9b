/**
 * makeSchema's first step: the SDL parsed and built into a schema, and the schema validated,
 * every failure a TypeError that starts with `makeSchema:` and says where it is.
 *
 * graphql-js says what is wrong but not always where: a parse error is located, while the SDL
 * rules' errors reach buildASTSchema's caller as one plain Error (`Unknown type "Strin".`), and a
 * schema that builds but breaks the type system's rules (a union of a scalar, a missing Query
 * type) is only refused when it first runs. So each part of `typeDefs` is parsed as a Source of
 * its own (its name says which part, when there are several), the names a build error quotes are
 * looked up in the document to locate it, and validateSchema runs here, at once.
 */
import { GraphQLError, Kind, Source, buildASTSchema, concatAST, validateSchema, visit } from 'graphql';
import type { ASTNode, DocumentNode, GraphQLSchema } from 'graphql';
// graphql's parse, published on graphql:parse under graphql 16 as graphql 17's own parse publishes it.
import { parse } from '../language/tracingChannels.ts';

type TypeDefs = string | DocumentNode | ReadonlyArray<string | DocumentNode>;

/** The parts of typeDefs parsed, each a Source named after its place. */
export function sdlDocument(typeDefs: TypeDefs): DocumentNode {
  const parts: ReadonlyArray<string | DocumentNode> = Array.isArray(typeDefs) ? typeDefs : [typeDefs as string | DocumentNode];
  if (parts.length === 0) throw new TypeError('makeSchema: typeDefs must contain at least one SDL document.');
  return concatAST(
    parts.map((part, index) => {
      if (typeof part !== 'string') return part;
      try {
        return parse(new Source(part, parts.length === 1 ? 'typeDefs' : `typeDefs[${index}]`));
      } catch (error) {
        throw new TypeError(`makeSchema: ${(error as Error).message.split('\n')[0]}${whereError(error)}`, { cause: error });
      }
    }),
  );
}

/** The schema the document describes, valid by the type system's rules; else a located TypeError. */
export function buildSdlSchema(document: DocumentNode): GraphQLSchema {
  let schema: GraphQLSchema;
  try {
    schema = buildASTSchema(document);
  } catch (error) {
    // One plain Error holding every SDL rule's message, separated by blank lines.
    const messages = (error as Error).message.split('\n\n');
    throw new TypeError(`makeSchema: ${messages.map((message) => message + whereNamed(message, document)).join('\nmakeSchema: ')}`, { cause: error });
  }
  const errors = validateSchema(schema);
  if (errors.length > 0) {
    throw new TypeError(errors.map((error) => `makeSchema: ${error.message}${whereError(error)}`).join('\n'), { cause: errors[0] });
  }
  return schema;
}

/** ` (at typeDefs line 3, column 7)` for an error that knows where it is; '' otherwise. */
function whereError(error: unknown): string {
  if (!(error instanceof GraphQLError)) return '';
  const location = error.locations?.[0];
  const node = error.nodes?.find((candidate) => candidate.loc !== undefined);
  const sourceName = error.source?.name ?? node?.loc?.source.name;
  return location === undefined ? '' : ` (at ${sourceName ?? 'typeDefs'} line ${location.line}, column ${location.column})`;
}

/**
 * Where a build error is: the node named by the first name the message quotes. The second
 * definition for "There can be only one …", the extension for "Cannot extend …", else the
 * first node with that name (a field's type for "Unknown type").
 */
function whereNamed(message: string, document: DocumentNode): string {
  const name = /"([_A-Za-z][_0-9A-Za-z]*)"/.exec(message)?.[1];
  if (name === undefined) return '';
  const found: ASTNode[] = [];
  const wantExtension = message.startsWith('Cannot extend');
  visit(document, {
    enter(node) {
      if (!('name' in node) || node.name === undefined || node.name.value !== name) return;
      const isExtension = node.kind.endsWith('Extension');
      if (!wantExtension || isExtension) found.push(node);
    },
  });
  const node = message.startsWith('There can be only one') ? (found.filter((candidate) => candidate.kind !== Kind.NAMED_TYPE)[1] ?? found[0]) : found[0];
  const loc = node?.loc;
  if (loc === undefined) return '';
  const { line, column } = loc.source.locationOffset;
  const before = loc.source.body.slice(0, loc.start).split('\n');
  const at = { line: before.length + line - 1, column: (before.at(-1) as string).length + (before.length === 1 ? column : 1) };
  return ` (at ${loc.source.name} line ${at.line}, column ${at.column})`;
}
