/**
 * docs/architecture.md's reading path names, step by step, the file and the function that does
 * each part of a request's life. A reader follows those names into the code, so every name must
 * be there: a function, a method, a class, or a property holding a function, declared in that file.
 * The TypeScript parser finds the declarations (comments and strings do not count).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOC = readFileSync(`${ROOT}docs/architecture.md`, 'utf8');

/** The reading path's steps: the numbered items under "## A reading path". */
function readingPath(): string[] {
  const start = DOC.indexOf('## A reading path');
  const end = DOC.indexOf('\n## ', start + 1);
  return DOC.slice(start, end === -1 ? undefined : end)
    .split('\n')
    .filter((line) => /^\d+\. /.test(line));
}

/** Every `file` `name` pair a step names: a code span that is a path under src/, then the code spans up to the next path. */
function namedFunctions(step: string): Array<{ file: string; name: string }> {
  const spans = [...step.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);
  const pairs: Array<{ file: string; name: string }> = [];
  let file: string | null = null;
  for (const span of spans) {
    if (/^src\/.+\.ts$/.test(span)) file = span;
    else if (file !== null && /^[A-Za-z_$][\w$]*$/.test(span)) pairs.push({ file, name: span });
  }
  return pairs;
}

/** The names declared in a module: functions, classes, methods, accessors and function-valued properties and variables. */
function declaredNames(file: string): Set<string> {
  const source = ts.createSourceFile(file, readFileSync(`${ROOT}${file}`, 'utf8'), ts.ScriptTarget.Latest, true);
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (
      (ts.isFunctionDeclaration(node) || ts.isClassDeclaration(node) || ts.isMethodDeclaration(node) || ts.isGetAccessorDeclaration(node)) &&
      node.name !== undefined &&
      ts.isIdentifier(node.name)
    ) {
      names.add(node.name.text);
    }
    if ((ts.isPropertyDeclaration(node) || ts.isVariableDeclaration(node)) && ts.isIdentifier(node.name)) {
      const { initializer, type } = node;
      if (initializer !== undefined && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer))) names.add(node.name.text);
      // A property declared as a function, assigned in the constructor.
      if (type !== undefined && ts.isFunctionTypeNode(type)) names.add(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

describe('docs/architecture.md: the reading path', () => {
  const steps = readingPath();

  it('has its steps, numbered from 1 without a gap', () => {
    expect(steps.length).toBeGreaterThanOrEqual(20);
    expect(steps.map((step) => Number(step.slice(0, step.indexOf('.'))))).toEqual(steps.map((_, index) => index + 1));
  });

  it('names in every step a file and at least one function of it', () => {
    const without = steps.filter((step) => namedFunctions(step).length === 0);
    expect(without).toEqual([]);
  });

  it('names only functions that exist in the files it names', () => {
    const missing: string[] = [];
    for (const step of steps) {
      for (const { file, name } of namedFunctions(step)) {
        let names: Set<string>;
        try {
          names = declaredNames(file);
        } catch {
          missing.push(`${file} (no such file)`);
          continue;
        }
        if (!names.has(name)) missing.push(`${file} ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('fails for a name that is not declared (the check itself)', () => {
    expect(declaredNames('src/server/pipeline.ts').has('authorize')).toBe(true);
    expect(declaredNames('src/server/pipeline.ts').has('noSuchPhase')).toBe(false);
  });
});
