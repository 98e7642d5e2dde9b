/**
 * The code in README.md and docs/*.md, as a reader meets it.
 *
 * - Every ts/js block says what it is in its info string: ```ts run (a complete program) or
 *   ```ts fragment (a piece shown for reading). A block without either fails here, by file and line.
 * - Every `run` block is written to a module inside the repository (so that `graphql` and the
 *   other packages resolve from node_modules), its `from 'graphql-glassbox'` pointed at
 *   src/index.ts (the only change made to it), and run with `node --import tsx` under a timeout:
 *   it must exit 0. A block followed by an output block (```text output) must print exactly that,
 *   where a `…` stands for any text within its line (a time, a port the system chose).
 *   The TypeScript ones also type-check, as a user's program would (resolver parameters, which
 *   makeSchema's resolver map leaves untyped, may be implicitly any).
 * - The API tables (`| entry | what it does | example |`) of README.md and docs/api.md: their
 *   examples, put in one TypeScript file beside declarations of the names they use, must
 *   type-check under the TypeScript 7 compiler the repository's type check runs.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOCUMENTS = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];
const CODE_LANGUAGES = new Set(['ts', 'js', 'typescript', 'javascript']);
const MARKERS = new Set(['run', 'fragment']);
/** How long one example may run: examples that serve listen on port 0, ask once and shut down. */
const RUN_TIMEOUT_MS = 90_000;

export interface CodeBlock {
  file: string;
  /** The line of the opening fence, counted from 1. */
  line: number;
  language: string;
  /** The words of the info string after the language. */
  words: string[];
  code: string;
  /** The text of the output block that follows it (```text output), if one does. */
  output: string | null;
}

/** The fenced code blocks of a Markdown text, each with the output block that follows it. */
export function codeBlocks(file: string, text: string): CodeBlock[] {
  const lines = text.split('\n');
  const blocks: Array<CodeBlock & { end: number }> = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/.exec(lines[i] as string);
    if (open === null) continue;
    const fence = open[1] as string;
    const [language = '', ...words] = (open[2] as string).trim().split(/\s+/).filter((word) => word !== '');
    let end = i + 1;
    const closing = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    while (end < lines.length && !closing.test(lines[end] as string)) end++;
    blocks.push({ file, line: i + 1, language, words, code: lines.slice(i + 1, end).join('\n') + '\n', output: null, end });
    i = end;
  }
  for (let k = 0; k + 1 < blocks.length; k++) {
    const block = blocks[k] as CodeBlock & { end: number };
    const next = blocks[k + 1] as CodeBlock & { end: number };
    const between = lines.slice(block.end + 1, next.line - 1);
    if (next.words.includes('output') && between.every((line) => line.trim() === '')) block.output = next.code;
  }
  return blocks.map(({ end: _end, ...block }) => block);
}

/** The ts/js blocks whose info string names neither `run` nor `fragment`, as `file:line` messages. */
export function unmarked(blocks: ReadonlyArray<CodeBlock>): string[] {
  return blocks
    .filter((block) => CODE_LANGUAGES.has(block.language) && !block.words.some((word) => MARKERS.has(word)))
    .map((block) => `${block.file}:${block.line}: \`\`\`${block.language} ${block.words.join(' ')}`.trimEnd() + ' has no marker: write `run` (a complete program) or `fragment` after the language');
}

/** The example as a module of this repository: the package's name pointed at src/index.ts, and only that. */
function asModule(block: CodeBlock, dir: string): string {
  const index = relative(dir, join(ROOT, 'src', 'index.ts')).split('\\').join('/');
  return block.code.replace(/(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])graphql-glassbox\2/g, `$1$2${index.startsWith('.') ? index : `./${index}`}$2`);
}

/** Runs one `run` block; null when it exited 0 (and printed its output block, if any), else what went wrong. */
export async function runBlock(block: CodeBlock, dir: string, timeoutMs = RUN_TIMEOUT_MS): Promise<string | null> {
  const name = `${block.file.replace(/[^A-Za-z0-9]+/g, '-')}-${block.line}.${block.language.startsWith('j') ? 'mjs' : 'ts'}`;
  const path = join(dir, name);
  writeFileSync(path, asModule(block, dir));
  const { code, signal, stdout, stderr } = await new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) => {
    const env = { ...process.env };
    delete env['NODE_OPTIONS'];
    execFile(process.execPath, ['--import', 'tsx', path], { cwd: ROOT, timeout: timeoutMs, killSignal: 'SIGKILL', env }, (error, out, err) => {
      const failure = error as (Error & { code?: number | string; signal?: string | null }) | null;
      resolve({ code: failure === null ? 0 : typeof failure.code === 'number' ? failure.code : null, signal: failure?.signal ?? null, stdout: out, stderr: err });
    });
  });
  const where = `${block.file}:${block.line}`;
  const shown = `\n--- stdout\n${stdout}--- stderr\n${stderr}`;
  if (signal !== null) return `${where}: the example did not finish within ${timeoutMs / 1000} s (killed by ${signal})${shown}`;
  if (code !== 0) return `${where}: the example exited with code ${code}${shown}`;
  if (block.output !== null && !printedAsShown(stdout, block.output)) {
    return `${where}: the example printed other than its output block\n--- expected\n${block.output}--- printed\n${stdout}--- stderr\n${stderr}`;
  }
  return null;
}

/** Whether what an example printed is its output block, each `…` of the block standing for any text within a line. */
function printedAsShown(printed: string, shown: string): boolean {
  if (!shown.includes('…')) return printed === shown;
  const pattern = shown.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^\n]*');
  return new RegExp(`^${pattern}$`).test(printed);
}

/** The inline code of the example column of each `| entry | what it does | example |` table. */
export function tableExamples(file: string, text: string): Array<{ file: string; line: number; code: string }> {
  const lines = text.split('\n');
  const examples: Array<{ file: string; line: number; code: string }> = [];
  for (let i = 0; i < lines.length; i++) {
    const header = cells(lines[i] as string);
    const column = header.indexOf('example');
    if (!(header[0] === 'entry' && column !== -1)) continue;
    for (let row = i + 2; row < lines.length && (lines[row] as string).trimStart().startsWith('|'); row++) {
      const cell = cells(lines[row] as string)[column] ?? '';
      for (const span of cell.matchAll(/`([^`]+)`/g)) examples.push({ file, line: row + 1, code: span[1] as string });
    }
  }
  return examples;
}

/** A table row's cells, trimmed: split at the pipes outside inline code. */
function cells(line: string): string[] {
  if (!line.trimStart().startsWith('|')) return [];
  const result: string[] = [];
  let cell = '';
  let inCode = false;
  for (const char of line.trim().slice(1)) {
    if (char === '`') inCode = !inCode;
    if (char === '|' && !inCode) {
      result.push(cell.trim());
      cell = '';
    } else cell += char;
  }
  return result;
}

/**
 * The names the tables' examples use, with the types a program of a user would give them. An
 * example that uses a name not declared here fails the type check ("Cannot find name"): declare
 * it here, with its real type.
 */
const DECLARATIONS = `
declare const schema: GraphQLSchema;
declare const document: DocumentNode;
declare const typeDefs: string;
declare const resolvers: Resolvers;
declare const db: { authorsByIds(ids: ReadonlyArray<string>): Promise<Array<{ id: string; name: string } | null>> };
declare const context: NonNullable<ServerOptions['context']>;
declare const request: PlainRequest;
declare const jwksUrl: string;
declare const issuer: string;
declare const audience: string;
declare const pubsub: PubSub;
declare const webhooks: Webhooks;
declare const review: { id: string; bookId: string; stars: number };
declare const data: { id: string; bookId: string; stars: number };
`;

/** An option (`rateLimit: { … }`) goes in the call it belongs to; anything else is a statement. */
function asStatement(code: string): string {
  return /^[A-Za-z]\w*\s*:/.test(code) ? `createServer({ schema, ${code} });` : `${code};`;
}

/** One TypeScript file of the tables' examples, each in a block of its own on one line, and which line is whose. */
export function tableProgram(examples: ReadonlyArray<{ file: string; line: number; code: string }>, dir: string, valueExports: ReadonlyArray<string>): { text: string; origins: Map<number, string> } {
  const index = relative(dir, join(ROOT, 'src', 'index.ts')).split('\\').join('/');
  const head = [
    `import { parse } from 'graphql';`,
    `import type { DocumentNode, GraphQLSchema } from 'graphql';`,
    `import { ${valueExports.join(', ')} } from '${index}';`,
    `import type { PlainRequest, PubSub, Resolvers, ServerOptions, Webhooks } from '${index}';`,
    ...DECLARATIONS.trim().split('\n'),
    'export async function examples(): Promise<void> {',
  ];
  const origins = new Map<number, string>();
  const body = examples.map((example, k) => {
    origins.set(head.length + k + 1, `${example.file}:${example.line}: \`${example.code}\``);
    return `  { ${asStatement(example.code)} }`;
  });
  return { text: [...head, ...body, '}', 'void parse;', ''].join('\n'), origins };
}

/**
 * Type-checks files with TypeScript 7 under the repository's options (unused names allowed, and
 * with `implicitAny`, parameters without a type); the diagnostics, each after the place in the
 * documents its line came from (`origin`), when known.
 */
export async function typeCheck(
  dir: string,
  files: ReadonlyArray<{ name: string; text: string }>,
  origin: (name: string, line: number) => string | undefined,
  implicitAny = false,
): Promise<string[]> {
  for (const file of files) writeFileSync(join(dir, file.name), file.text);
  const config = join(dir, `${files[0]?.name ?? 'none'}.tsconfig.json`);
  const compilerOptions = { noUnusedLocals: false, noUnusedParameters: false, ...(implicitAny ? { noImplicitAny: false } : {}) };
  const base = relative(dir, join(ROOT, 'tsconfig.json')).split('\\').join('/');
  writeFileSync(config, JSON.stringify({ extends: base, compilerOptions, include: [], files: files.map((file) => file.name) }));
  const tsc = join(ROOT, 'node_modules', 'typescript-7', 'bin', 'tsc');
  const output = await new Promise<string>((resolve) => {
    execFile(process.execPath, [tsc, '--noEmit', '--pretty', 'false', '-p', config], { cwd: ROOT, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve(error === null ? '' : `${stdout}${stderr}` || String(error));
    });
  });
  return output
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const at = /([^/\\(]+\.ts)\((\d+),\d+\)/.exec(line);
      const where = at === null ? undefined : origin(at[1] as string, Number(at[2]));
      return where === undefined ? line : `${where}\n    ${line}`;
    });
}

const texts = new Map(DOCUMENTS.map((file) => [file, readFileSync(join(ROOT, file), 'utf8')]));
const blocks = [...texts].flatMap(([file, text]) => codeBlocks(file, text));
const runnable = blocks.filter((block) => CODE_LANGUAGES.has(block.language) && block.words.includes('run'));
let dir: string;

beforeAll(() => {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  dir = mkdtempSync(join(ROOT, '.tmp', 'docs-examples-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true }); // .tmp/ itself stays (ignored by git): another run may be using it
});

describe('the code blocks of README.md and docs/', () => {
  it('mark every ts and js block as run or fragment', () => {
    expect(blocks.filter((block) => CODE_LANGUAGES.has(block.language)).length).toBeGreaterThan(10);
    expect(unmarked(blocks)).toEqual([]);
  });

  it('write every example against the package, as a user imports it', () => {
    const local = blocks.filter((block) => CODE_LANGUAGES.has(block.language) && /from\s+['"][./][^'"]*src\/index(\.ts)?['"]/.test(block.code));
    expect(local.map((block) => `${block.file}:${block.line} imports src/index.ts: import from 'graphql-glassbox'`)).toEqual([]);
  });

  it.concurrent.each(runnable.map((block) => [`${block.file}:${block.line}`, block] as const))(
    '%s runs',
    async (_where, block) => {
      const failure = await runBlock(block, dir);
      if (failure !== null) expect.fail(failure);
    },
    RUN_TIMEOUT_MS + 30_000,
  );
});

describe('the run blocks', () => {
  // makeSchema's resolver map does not type a resolver's parameters (its values are unions of
  // function types), so the examples' resolvers are checked with implicit any allowed.
  it('type-check as TypeScript, every one written in it', async () => {
    const typed = runnable.filter((block) => !block.language.startsWith('j'));
    const files = typed.map((block) => ({ name: `typed-${block.file.replace(/[^A-Za-z0-9]+/g, '-')}-${block.line}.ts`, text: asModule(block, dir), block }));
    const byName = new Map(files.map((file) => [file.name, file.block]));
    const diagnostics = await typeCheck(dir, files, (name, line) => {
      const block = byName.get(name);
      return block === undefined ? undefined : `${block.file}:${block.line + line}`;
    }, true);
    if (diagnostics.length > 0) expect.fail(`the run blocks do not type-check:\n${diagnostics.join('\n')}`);
  });
});

describe('the API tables', () => {
  it('type-check, every example in them', async () => {
    const examples = [...texts].flatMap(([file, text]) => tableExamples(file, text));
    expect(examples.length).toBeGreaterThanOrEqual(12);
    const valueExports = Object.keys(await import('../src/index.ts')).sort();
    const { text, origins } = tableProgram(examples, dir, valueExports);
    const diagnostics = await typeCheck(dir, [{ name: 'api-tables.ts', text }], (name, line) => (name === 'api-tables.ts' ? origins.get(line) : undefined));
    if (diagnostics.length > 0) expect.fail(`the API tables' examples do not type-check:\n${diagnostics.join('\n')}`);
  });
});

describe('this suite fails where it should', () => {
  it('names the file and line of an unmarked block, and reads a run block with its output block', () => {
    const found = codeBlocks('guide.md', 'Text.\n\n```ts\nlet a = 1;\n```\n\n```ts run\nconsole.log(1);\n```\n\n```text output\n1\n```\n');
    expect(unmarked(found)).toEqual(['guide.md:3: ```ts has no marker: write `run` (a complete program) or `fragment` after the language']);
    expect(found[1]).toMatchObject({ line: 7, words: ['run'], code: 'console.log(1);\n', output: '1\n' });
  });

  it('reports a failing example, one that prints other than its output, and one that hangs, with file, line and stderr', async () => {
    const block = (code: string, output: string | null = null): CodeBlock => ({ file: 'guide.md', line: 9, language: 'ts', words: ['run'], code, output });
    const [thrown, passed, other, hung] = await Promise.all([
      runBlock(block(`import { makeSchema } from 'graphql-glassbox';\nmakeSchema({ typeDefs: 'type Query { a: Nope }' });\n`), dir),
      runBlock({ ...block(`import { parse } from 'graphql';\nconsole.log(parse('{ a }').kind);\n`, 'Document\n'), line: 10 }, dir),
      runBlock({ ...block(`console.log('two');\n`, 'one\n'), line: 11 }, dir),
      runBlock({ ...block(`setInterval(() => {}, 1000);\n`), line: 12 }, dir, 3000),
    ]);
    expect(thrown).toMatch(/^guide\.md:9: the example exited with code 1/);
    expect(thrown).toContain('Nope');
    expect(passed).toBeNull();
    expect(other).toMatch(/^guide\.md:11: the example printed other than its output block\n--- expected\none\n--- printed\ntwo\n/);
    expect(hung).toMatch(/^guide\.md:12: the example did not finish within 3 s/);
  });

  it('reports an example of an API table that does not type-check, by file and line', async () => {
    const examples = tableExamples('guide.md', '| entry | what it does | example |\n|---|---|---|\n| `makeSchema` | builds | `makeSchema({ typeDefs: 1 })` |\n| `rateLimit` | limits | `rateLimit: { requests: 5 }` |\n');
    const { text, origins } = tableProgram(examples, dir, ['createServer', 'makeSchema']);
    const diagnostics = await typeCheck(dir, [{ name: 'broken-table.ts', text }], (name, line) => (name === 'broken-table.ts' ? origins.get(line) : undefined));
    expect(diagnostics.join('\n')).toMatch(/^guide\.md:3: `makeSchema\(\{ typeDefs: 1 \}\)`\n {4}.*error TS2322/m);
    expect(diagnostics.join('\n')).toMatch(/^guide\.md:4: `rateLimit: \{ requests: 5 \}`\n {4}.*error TS2559|^guide\.md:4: `rateLimit: \{ requests: 5 \}`\n {4}.*error TS2322/m);
  });
});
