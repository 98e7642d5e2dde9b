/**
 * The error registry (src/errors/codes.ts) is the one place a code is spelled: docs/errors.md is
 * what it generates, each code's docs anchor names a real heading, and no module of src/ outside
 * src/errors/ spells a code itself (a string literal, or the key of an object literal: a second
 * registry in disguise). Code names in comments and in longer strings are prose, and allowed.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  ErrorChannel,
  ErrorCode,
  WEBSOCKET_CLOSE_CODES,
  WebSocketCloseCode,
  executionErrorStatus,
  httpStatus,
} from '../src/errors/codes.ts';
import { ERRORS_DOC_PATH, errorsDoc } from '../scripts/errors-doc.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CODES = new Set<string>(Object.values(ErrorCode));

/** The `.ts` files under a folder of the repository, as paths relative to it. */
function sourceFiles(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) found.push(...sourceFiles(path));
    else if (entry.name.endsWith('.ts')) found.push(path);
  }
  return found;
}

/** Where a module spells a registry code: string literals, and keys of object literals. */
function codeSpellings(path: string): string[] {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const report = (node: ts.Node, code: string) => {
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${path}:${line + 1} ${code}`);
  };
  const visit = (node: ts.Node): void => {
    if ((ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && CODES.has(node.text)) report(node, node.text);
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && CODES.has(node.name.text)) report(node.name, node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(docsFile: string): Set<string> {
  const text = readFileSync(join(ROOT, 'docs', docsFile), 'utf8');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1] as string)));
}

describe('the error registry', () => {
  it('docs/errors.md is what the registry generates (npm run docs:errors writes it)', () => {
    expect(readFileSync(ERRORS_DOC_PATH, 'utf8')).toBe(errorsDoc());
  });

  it("spells each code once, and each code's docs link names a heading that exists", () => {
    const infos = Object.values(ERROR_CODES);
    expect(new Set(infos.map((info) => info.code)).size).toBe(infos.length);
    for (const info of infos) {
      const [file, anchor] = info.docs.split('#') as [string, string];
      expect(anchorsOf(file), `${info.code}: ${info.docs}`).toContain(anchor);
    }
    expect(new Set(WEBSOCKET_CLOSE_CODES.map((close) => close.code))).toEqual(new Set(Object.values(WebSocketCloseCode)));
  });

  it("answers an HTTP-level failure with the registry's status, 500 for a code without one", () => {
    expect(ErrorCode.BadRequest).toBe('BAD_REQUEST');
    expect([ErrorCode.NotFound, ErrorCode.PayloadTooLarge, ErrorCode.TooManyConnections, ErrorCode.OriginNotAllowed].map(httpStatus)).toEqual([404, 413, 429, 403]);
    for (const info of Object.values(ERROR_CODES)) {
      if (info.channels.includes(ErrorChannel.Http)) expect(httpStatus(info.code), info.code).toBe(info.status);
    }
    expect(httpStatus(ErrorCode.WebhookUnknownEventType)).toBe(500);
  });

  it("answers a resolver's code in a resource route with the registry's status, anything else with 500", () => {
    const statuses = Object.fromEntries(
      ['BAD_USER_INPUT', 'BAD_REQUEST', 'UNAUTHENTICATED', 'FORBIDDEN', 'MFA_REQUIRED', 'NOT_FOUND', 'CONFLICT', 'TIMEOUT', 'WEBHOOKS_DISABLED', 'MY_OWN'].map(
        (code) => [code, executionErrorStatus(code)],
      ),
    );
    expect(statuses).toEqual({
      BAD_USER_INPUT: 400,
      BAD_REQUEST: 400,
      UNAUTHENTICATED: 401,
      FORBIDDEN: 403,
      MFA_REQUIRED: 403,
      NOT_FOUND: 404,
      CONFLICT: 409,
      TIMEOUT: 504,
      WEBHOOKS_DISABLED: 500,
      MY_OWN: 500,
    });
  });

  it('no module of src/ outside src/errors/ spells a code itself: it names it through ErrorCode', () => {
    const files = sourceFiles('src').filter((path) => !path.startsWith('src/errors/'));
    const spellings = files.flatMap(codeSpellings);
    expect(spellings).toEqual([]);
  });
});
