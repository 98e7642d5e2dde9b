/**
 * A minimal GraphiQL build (a manifest, one script, one style sheet) in a temporary directory,
 * for suites that serve the IDE but must not depend on whether `npm run build:graphiql` ran on
 * this machine: without a build the endpoint answers browsers 503 SERVICE_UNAVAILABLE.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface FixtureAssets {
  directory: string;
  remove(): Promise<void>;
}

export async function fixtureGraphiqlAssets(): Promise<FixtureAssets> {
  const directory = await mkdtemp(path.join(tmpdir(), 'graphiql-assets-'));
  const files = { 'graphiql-FIXTURE1.js': 'console.log("fixture");\n', 'graphiql-FIXTURE2.css': 'body { margin: 0; }\n' };
  for (const [name, text] of Object.entries(files)) await writeFile(path.join(directory, name), text);
  const manifest = {
    version: 1,
    entries: { js: 'graphiql-FIXTURE1.js', css: 'graphiql-FIXTURE2.css' },
    files: Object.fromEntries(Object.entries(files).map(([name, text]) => [name, { bytes: text.length, sha256: 'x', hashed: true }])),
  };
  await writeFile(path.join(directory, 'manifest.json'), JSON.stringify(manifest));
  return { directory, remove: () => rm(directory, { recursive: true, force: true }) };
}
