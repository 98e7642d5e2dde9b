/**
 * Bundles the GraphiQL page's browser code (src/graphiql/) into dist/graphiql/ with esbuild, so
 * that the server can serve the IDE from its own files: no CDN, and it works with no internet.
 *
 *   tsx scripts/build-graphiql.ts             always build
 *   tsx scripts/build-graphiql.ts --if-stale  build only when an input is newer than the outputs
 *                                             (`npm start` runs this: fast the second time)
 *
 * Output names carry esbuild's content hash (`graphiql-<hash>.js`), so the server can let
 * browsers keep them for a year; manifest.json says which files there are, their SHA-256 and
 * whether their name is hashed. The server serves only the files the manifest names
 * (src/transports/http/graphiql.ts), so nothing else in the directory is ever reachable.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import * as esbuild from 'esbuild';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SOURCE_DIR = path.join(ROOT, 'src/graphiql');
export const DEFAULT_OUT_DIR = path.join(ROOT, 'dist/graphiql');

/** manifest.json: what the server may serve. */
export interface GraphiqlManifest {
  version: 1;
  /** The page's stylesheet and script, by file name. */
  entries: { js: string; css: string };
  files: Record<string, { bytes: number; sha256: string; hashed: boolean }>;
}

export interface BuildGraphiqlOptions {
  /** Skip the build when every output is newer than every input. */
  ifStale?: boolean;
  /** Where to write (default dist/graphiql/ at the package root). */
  outDir?: string;
  /** Print nothing (the one line is returned as `summary` too). */
  quiet?: boolean;
}

export interface BuildGraphiqlResult {
  built: boolean;
  outDir: string;
  manifest: GraphiqlManifest;
  /** Wall time of the build (0 when skipped). */
  ms: number;
  summary: string;
}

export async function buildGraphiql(options: BuildGraphiqlOptions = {}): Promise<BuildGraphiqlResult> {
  const outDir = options.outDir ?? DEFAULT_OUT_DIR;
  const say = (line: string) => {
    if (options.quiet !== true) console.log(line);
    return line;
  };
  if (options.ifStale === true) {
    const current = await upToDate(outDir);
    if (current !== null) {
      return { built: false, outDir, manifest: current, ms: 0, summary: say(`graphiql: ${relative(outDir)} is up to date, nothing built.`) };
    }
  }
  const started = performance.now();
  // Old hashed files would pile up otherwise: the directory holds one build.
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const result = await esbuild.build({
    entryPoints: { graphiql: path.join(SOURCE_DIR, 'main.jsx') },
    outdir: outDir,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    sourcemap: 'linked',
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    jsx: 'automatic',
    // React's and graphql-js's production builds: smaller, and without development-only checks.
    define: { 'process.env.NODE_ENV': '"production"' },
    // The fonts GraphiQL's stylesheet embeds stay data: URLs (the page's CSP allows them).
    loader: { '.woff2': 'dataurl', '.woff': 'dataurl', '.ttf': 'dataurl', '.svg': 'dataurl' },
    legalComments: 'linked',
    metafile: true,
    logLevel: 'silent',
  });
  const files: GraphiqlManifest['files'] = {};
  let js: string | undefined;
  let css: string | undefined;
  for (const output of Object.keys(result.metafile.outputs)) {
    const name = path.basename(output);
    const bytes = await readFile(path.join(outDir, name));
    files[name] = { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), hashed: /-[A-Z0-9]{8}\.(?:js|css)$/.test(name) };
    if (name.endsWith('.js')) js = name;
    else if (name.endsWith('.css')) css = name;
  }
  if (js === undefined || css === undefined) throw new Error(`esbuild wrote no ${js === undefined ? 'script' : 'stylesheet'} for GraphiQL.`);
  const manifest: GraphiqlManifest = { version: 1, entries: { js, css }, files };
  // Written last: a build that failed half-way leaves no manifest, so it counts as not built.
  await writeFile(path.join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  const ms = performance.now() - started;
  const sizes = [js, css].map((name) => `${name} ${kilobytes(files[name]!.bytes)}`).join(', ');
  return { built: true, outDir, manifest, ms, summary: say(`graphiql: built ${relative(outDir)} in ${(ms / 1000).toFixed(1)} s (${sizes}).`) };
}

/** The manifest when every output exists and is newer than every input; else null. */
async function upToDate(outDir: string): Promise<GraphiqlManifest | null> {
  let manifest: GraphiqlManifest;
  try {
    manifest = JSON.parse(await readFile(path.join(outDir, 'manifest.json'), 'utf8')) as GraphiqlManifest;
  } catch {
    return null;
  }
  let oldestOutput = Infinity;
  for (const name of ['manifest.json', ...Object.keys(manifest.files ?? {})]) {
    const info = await stat(path.join(outDir, name)).catch(() => null);
    if (info === null) return null;
    oldestOutput = Math.min(oldestOutput, info.mtimeMs);
  }
  for (const input of await inputs()) {
    const info = await stat(input).catch(() => null);
    if (info !== null && info.mtimeMs >= oldestOutput) return null;
  }
  return manifest;
}

/**
 * What a build depends on: the page's sources, this script, and the installed packages (npm
 * rewrites node_modules/.package-lock.json on every install that changes something).
 */
async function inputs(): Promise<string[]> {
  const sources = (await readdir(SOURCE_DIR, { recursive: true })).map((name) => path.join(SOURCE_DIR, name));
  const others = [fileURLToPath(import.meta.url), path.join(ROOT, 'package-lock.json'), path.join(ROOT, 'node_modules/.package-lock.json')];
  return [...sources, ...others.filter((file) => existsSync(file))];
}

function relative(dir: string): string {
  const shown = path.relative(process.cwd(), dir) || '.';
  return shown.endsWith(path.sep) ? shown : shown + path.sep;
}

function kilobytes(bytes: number): string {
  return `${(bytes / 1024).toFixed(0)} KiB`;
}

// Run as a script (not imported by a test).
if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  buildGraphiql({ ifStale }).catch((error: unknown) => {
    const failure = error as { errors?: esbuild.Message[]; message?: string };
    if (failure.errors !== undefined && failure.errors.length > 0) {
      const lines = esbuild.formatMessagesSync(failure.errors, { kind: 'error', color: false });
      console.error(`graphiql: the build failed:\n${lines.join('\n')}`);
    } else {
      console.error(`graphiql: the build failed: ${failure.message ?? String(error)}`);
    }
    process.exit(1);
  });
}
