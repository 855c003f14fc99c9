/**
 * The top of a V8 CPU profile (`node --cpu-prof`): self time by function and by package.
 *
 *   node -r @swc-node/register tools/bench/cpuprofile-top.ts FILE.cpuprofile [--top 30] [--callers NAME]
 *
 * `--callers NAME`: the stacks (8 frames up) that spent self time in functions named NAME.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '30' }, callers: { type: 'string' } } });
const file = positionals[0];
if (!file) {
  process.stderr.write('usage: cpuprofile-top.ts FILE.cpuprofile [--top 30]\n');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);

/** Where code comes from: a package under node_modules, the hub's own source, or Node itself. */
function origin(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.includes('/libs/') || url.includes('/apps/'))
    return `hub:${url
      .replace(/^.*\/(libs|apps)\//, '$1/')
      .split('/')
      .slice(0, 2)
      .join('/')}`;
  if (url.startsWith('node:') || url === '') return url || '(native)';
  return url;
}

const fns = new Map<string, number>();
const pkgs = new Map<string, number>();
for (const [id, us] of selfUs) {
  const n = byId.get(id);
  if (!n) continue;
  const f = `${n.callFrame.functionName || '(anonymous)'} ${origin(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
  fns.set(f, (fns.get(f) ?? 0) + us);
  const p = origin(n.callFrame.url);
  pkgs.set(p, (pkgs.get(p) ?? 0) + us);
}
const top = Number(values.top);
const show = (m: Map<string, number>) =>
  [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`)
    .join('\n');
process.stdout.write(`${file}: ${(total / 1000).toFixed(0)} ms sampled\n\nby package:\n${show(pkgs)}\n\nby function (self time):\n${show(fns)}\n`);

if (values.callers) {
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stacks = new Map<string, number>();
  for (const [id, us] of selfUs) {
    if (byId.get(id)?.callFrame.functionName !== values.callers) continue;
    const frames: string[] = [];
    for (let at = parent.get(id); at !== undefined && frames.length < 8; at = parent.get(at)) {
      const f = byId.get(at)?.callFrame;
      if (f) frames.push(`${f.functionName || '(anonymous)'} ${origin(f.url)}:${f.lineNumber + 1}`);
    }
    const k = frames.join(' < ');
    stacks.set(k, (stacks.get(k) ?? 0) + us);
  }
  process.stdout.write(`\ncallers of ${values.callers}:\n${show(stacks)}\n`);
}
