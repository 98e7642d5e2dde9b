import { transformSync } from 'esbuild';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
function walk(d, out=[]) { for (const f of readdirSync(d)) { const p = join(d,f); if (statSync(p).isDirectory()) walk(p,out); else if (p.endsWith('.ts')) out.push(p);} return out; }
for (const file of walk('src')) {
  const src = readFileSync(file, 'utf8');
  const { code } = transformSync(src, { loader: 'ts', format: 'esm', keepNames: true, target: 'node20', sourcefile: file });
  const lines = code.split('\n');
  lines.forEach((l, i) => { if (/__name\(/.test(l) && /^\s+/.test(l) && !/^\s+static \{ __name/.test(l) && !/^\s*__name\(/.test(l)) console.log(file + ':' + (i+1) + ': ' + l.trim().slice(0, 140)); });
}
