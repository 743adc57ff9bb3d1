// Where a process's CPU went, from the V8 profiles `--cpu-prof` writes: self time summed per
// package (a dependency under node_modules, Node's own internals, this project's files, the
// garbage collector, native code) and the functions with the most self time. Idle time is
// left out, so the shares are of the time the process was busy.
//   node perf/profile-summary.js /tmp/prof/CPU.<...>.cpuprofile [...] [--top 25]
// Several files of one process (say, two runs) are summed.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const ROOT = new URL('..', import.meta.url).pathname;

/** The package a profile node's code belongs to. */
export function packageOf({ functionName, url }) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const inModules = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
  if (inModules) return inModules[1];
  if (url.startsWith('node:')) return 'node:internal';
  return url.replace(/^file:\/\//, '').replace(ROOT, '').split('/').slice(0, 2).join('/');
}

/** Self microseconds per profile node id, from the sample ids and the time deltas. */
function selfMicroseconds(profile) {
  const self = new Map();
  profile.samples.forEach((id, index) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0)));
  return self;
}

function summarise(files) {
  const byPackage = new Map();
  const byFunction = new Map();
  let busyUs = 0;
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8'));
    const self = selfMicroseconds(profile);
    for (const node of profile.nodes) {
      const us = self.get(node.id) ?? 0;
      const frame = node.callFrame;
      if (us === 0 || frame.functionName === '(idle)') continue;
      busyUs += us;
      const pkg = packageOf(frame);
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
      const where = `${frame.functionName || '(anonymous)'} ${frame.url.replace(/^.*node_modules\//, '').replace(ROOT, '').replace(/^file:\/\//, '')}:${frame.lineNumber + 1}`;
      byFunction.set(where, (byFunction.get(where) ?? 0) + us);
    }
  }
  return { busyUs, byPackage, byFunction };
}

function printTop(title, map, busyUs, top) {
  console.log(`\n${title}`);
  for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((us / busyUs) * 100).toFixed(1).padStart(5)} %  ${name}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
  const { busyUs, byPackage, byFunction } = summarise(positionals);
  console.log(`busy ${(busyUs / 1e6).toFixed(2)} s`);
  printTop('self time by package', byPackage, busyUs, Number(values.top));
  printTop('self time by function', byFunction, busyUs, Number(values.top));
}
