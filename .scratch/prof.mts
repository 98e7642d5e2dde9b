// Usage: npx tsx /work/notes/cg/prof.mts <outdir> ours|ceiling [requests]
import autocannon from 'autocannon';
import { execFileSync } from 'node:child_process';
import { mkdirSync, copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONNECTIONS, REQUEST_HEADERS, startServer, cannedFrom } from '/work/main/bench/http/harness.ts';
const [outDir, name = 'ours', n = '12000'] = process.argv.slice(2);
mkdirSync(outDir, { recursive: true });
const body = JSON.stringify({ query: '{ hello }' });
let args: string[] = [];
if (name === 'ceiling') {
  const ours = await startServer('ours');
  const r = await fetch(ours.url, { method: 'POST', headers: REQUEST_HEADERS, body });
  const canned = join(outDir, 'canned.json');
  writeFileSync(canned, JSON.stringify(cannedFrom(Object.fromEntries(r.headers), Buffer.from(await r.arrayBuffer()))));
  await ours.stop();
  args = [canned];
}
const out = join(outDir, 'cg.out');
const server = await startServer(name as any, args, { tool: ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--cache-sim=yes', '--separate-threads=yes', `--callgrind-out-file=${out}`], nodeFlags: ['--max-semi-space-size=16', '--min-semi-space-size=16', '--perf-basic-prof', '--interpreted-frames-native-stack'], quiet: true });
const load = (amount: number) => autocannon({ url: server.url, method: 'POST', headers: REQUEST_HEADERS, body, connections: CONNECTIONS, amount, timeout: 600 });
await load(30000);
execFileSync('callgrind_control', ['--instr=on', String(server.pid)]);
const res = await load(Number(n));
execFileSync('callgrind_control', ['--instr=off', String(server.pid)]);
execFileSync('callgrind_control', ['--dump', String(server.pid)]);
copyFileSync(`/tmp/perf-${server.pid}.map`, join(outDir, 'perf.map'));
await server.stop();
console.log('requests', res.requests.total, 'errors', res.errors);
