/**
 * `npm ci` on the oldest Node the package supports prints no EBADENGINE warning: every package
 * the lock file installs (the dev dependencies' too) accepts that Node. graphql 17, which needs
 * Node 22+, is pinned apart in `.ci/graphql17`; peers' dependencies that moved to Node 22+ are
 * held back by `overrides` (docs/graphql-versions.md).
 */
import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  readonly version?: string;
  readonly engines?: { readonly node?: string } | ReadonlyArray<string>;
}

const root = new URL('../', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as { packages: Record<string, LockEntry> };

describe('engines', () => {
  it('the package says it supports Node 20.19 and later', () => {
    expect(manifest.engines.node).toBe('>=20.19');
  });

  it('every package in the lock file accepts Node 20.19.0, so npm ci on it warns EBADENGINE for none', () => {
    const oldest = semver.minVersion(manifest.engines.node)?.version;
    expect(oldest).toBe('20.19.0');
    const refusing = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, entry]) => {
        const range = Array.isArray(entry.engines) ? undefined : (entry.engines as { node?: string } | undefined)?.node;
        return range === undefined || semver.satisfies(oldest ?? '', range) ? [] : [`${path}@${entry.version ?? '?'} needs node ${range}`];
      });
    expect(refusing).toEqual([]);
  });
});
