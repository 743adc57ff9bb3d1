// The switch's image holds exactly the product and its operator tools: its file list, computed
// from the Dockerfile's COPY instructions against the tree and .dockerignore (printed below),
// has nothing of perf/ and no simulator, every tool of tools/, every entry point the chart runs
// from it, and every module those import. The in-cluster load test's image (the loadtest
// target) adds the simulators, the provisioning script and the gate, and nothing else of perf/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { chartNodeEntries, dockerfileStages, imageContents, relativeImports } from '../support/image-contents.js';

const root = new URL('../..', import.meta.url).pathname;
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');

/** The files of `files` that `entries` need: the entries and every module they import, transitively. */
function importClosure(entries) {
  const needed = new Set();
  const visit = (file) => {
    if (needed.has(file)) return;
    needed.add(file);
    if (file.endsWith('.js')) relativeImports(root, file).forEach(visit);
  };
  entries.forEach(visit);
  return [...needed].sort();
}

// The switch's image is what a plain `docker build .` makes: the Dockerfile's default target.
const switchImage = imageContents(root, null, dockerfile);
const loadTestImage = () => imageContents(root, 'loadtest', dockerfile);
const chartEntries = chartNodeEntries(root, load);

test('the switch\'s image: its file list', (t) => {
  t.diagnostic(`the switch's image (the Dockerfile's default target), ${switchImage.files.length} files of the tree:`);
  for (const line of [...switchImage.fromStages, ...switchImage.files]) t.diagnostic(`  ${line}`);
  t.diagnostic('the load test\'s image (target loadtest) adds:');
  for (const file of loadTestImage().files.filter((path) => !switchImage.files.includes(path))) t.diagnostic(`  ${file}`);
  assert.ok(switchImage.files.includes('package.json') && switchImage.files.includes('api-adapter/main.js'), 'the list was computed');
  assert.ok(switchImage.fromStages.some((line) => line.startsWith('node_modules ')), 'node_modules comes from the build stage');
});

test('a plain `docker build .` builds the switch stage, not the load test', () => {
  assert.equal(dockerfileStages(dockerfile).at(-1).from, 'switch', 'the last stage (the default target) is the switch');
  assert.deepEqual(imageContents(root, 'switch', dockerfile), switchImage);
});

test('the switch\'s image holds nothing of perf/ and no simulator', () => {
  const offending = switchImage.files.filter((file) => file.startsWith('perf/') || /simulator/i.test(file));
  assert.deepEqual(offending, []);
});

test('the switch\'s image holds every operator tool of tools/, and what they import', () => {
  const tools = readdirSync(join(root, 'tools')).filter((name) => name.endsWith('.js')).map((name) => `tools/${name}`);
  assert.ok(tools.length >= 5, tools.join(', '));
  const missing = importClosure(tools).filter((file) => !switchImage.files.includes(file));
  assert.deepEqual(missing, [], 'operator tools (or modules they import) left out of the image');
});

test('the switch\'s image holds every entry point the chart runs from it, and what they import', () => {
  const entries = chartEntries.filter(({ image }) => image === 'switch').map(({ entry }) => entry);
  assert.ok(entries.length >= 14, entries.join(', '));
  assert.ok(entries.includes('tools/migrate.js') && entries.includes('tools/create-topics.js'), 'the Jobs\' tools are among them');
  const missing = importClosure(entries).filter((file) => !switchImage.files.includes(file));
  assert.deepEqual(missing, [], 'entry points (or modules they import) left out of the image');
});

test('every container of the chart that runs node runs the switch\'s image or the load test\'s', () => {
  const unknown = chartEntries.filter(({ image }) => image !== 'switch' && image !== 'loadtest');
  assert.deepEqual(unknown, []);
});

test('the load test\'s image holds its entry points, the gate and what they import; of perf/ nothing more', () => {
  const loadTest = loadTestImage();
  const entries = chartEntries.filter(({ image }) => image === 'loadtest').map(({ entry }) => entry);
  assert.deepEqual([...new Set(entries)].sort(), ['perf/provision.js', 'perf/simulators/main.js']);
  // The simulators' workers are forked, not imported; the gate is run with kubectl exec.
  const needed = importClosure([...entries, 'perf/simulators/worker.js', 'perf/gate.js', 'tools/oracle-load.js']);
  assert.deepEqual(needed.filter((file) => !loadTest.files.includes(file)), []);
  const perf = loadTest.files.filter((file) => file.startsWith('perf/'));
  assert.deepEqual(perf.filter((file) => !needed.includes(file)), [], 'files of perf/ the load test does not run');
  assert.deepEqual(switchImage.files.filter((file) => !loadTest.files.includes(file)), [], 'it starts from the switch\'s image');
});
