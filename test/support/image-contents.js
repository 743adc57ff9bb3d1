// What the Dockerfile puts into each of its images, computed without building one: every COPY
// of a stage (and of the stages it starts from) expanded against the tree, less what
// .dockerignore keeps out of the build context, at the path it lands on under the WORKDIR.
// Copies from another stage (`COPY --from=build`, node_modules) are not files of the tree and
// are listed apart.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, posix } from 'node:path';

/** The Dockerfile's instructions, one per logical line (continuations joined, comments dropped). */
function instructions(dockerfileText) {
  return dockerfileText.replace(/\\\n/g, ' ').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
}

/**
 * The stages of a Dockerfile in order: `{ name, from, copies: [{ sources, destination, fromStage }] }`.
 * `name` is the stage's `AS` name (null when it has none); `from` its base image or stage.
 */
export function dockerfileStages(dockerfileText) {
  const stages = [];
  for (const line of instructions(dockerfileText)) {
    const [keyword, ...words] = line.split(/\s+/);
    if (keyword.toUpperCase() === 'FROM') {
      const asIndex = words.findIndex((word) => word.toUpperCase() === 'AS');
      stages.push({ name: asIndex === -1 ? null : words[asIndex + 1], from: words[0], copies: [] });
    } else if (keyword.toUpperCase() === 'COPY' && stages.length > 0) {
      const fromStage = words.find((word) => word.startsWith('--from='))?.slice('--from='.length) ?? null;
      const paths = words.filter((word) => !word.startsWith('--'));
      stages.at(-1).copies.push({ sources: paths.slice(0, -1), destination: paths.at(-1), fromStage });
    }
  }
  return stages;
}

/** .dockerignore's patterns, in order (none when there is no .dockerignore). */
function ignorePatterns(root) {
  const file = join(root, '.dockerignore');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
}

/** Whether .dockerignore keeps `path` out of the build context (its last matching pattern decides, as Docker's does). */
export function dockerIgnores(root, path) {
  const globToRegExp = (glob) => new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*\//g, '(.*/)?').replace(/\*/g, '[^/]*')}(/.*)?$`);
  let ignored = false;
  for (const pattern of ignorePatterns(root)) {
    const negated = pattern.startsWith('!');
    if (globToRegExp(negated ? pattern.slice(1) : pattern).test(path)) ignored = !negated;
  }
  return ignored;
}

/** The files of the build context at or under `path` (relative to root), as COPY sees them. */
function contextFiles(root, path) {
  const absolute = join(root, path);
  if (!existsSync(absolute)) throw new Error(`COPY ${path}: no such file or folder in the build context`);
  if (!statSync(absolute).isDirectory()) return dockerIgnores(root, path) ? [] : [path];
  return readdirSync(absolute).sort().flatMap((name) => contextFiles(root, posix.join(path, name)));
}

/** Where COPY puts `file` (one of the files of `source`) given its destination, relative to the WORKDIR. */
function landingPath(root, source, file, destination) {
  const target = posix.normalize(destination).replace(/\/$/, '');
  if (statSync(join(root, source)).isDirectory()) return posix.join(target, posix.relative(source, file));
  return destination.endsWith('/') ? posix.join(target, basename(file)) : target;
}

/**
 * The files of the image a stage builds, sorted, with the stages it starts from included:
 * `{ files, fromStages }`, `fromStages` naming what was copied from another stage
 * (e.g. `node_modules (from build)`). `stageName` null: the default target (the last stage).
 */
export function imageContents(root, stageName = null, dockerfileText = readFileSync(join(root, 'Dockerfile'), 'utf8')) {
  const stages = dockerfileStages(dockerfileText);
  const stage = stageName === null ? stages.at(-1) : stages.find((candidate) => candidate.name === stageName);
  if (!stage) throw new Error(`the Dockerfile has no stage ${stageName}`);
  const base = stages.slice(0, stages.indexOf(stage)).find((candidate) => candidate.name === stage.from);
  const inherited = base ? imageContents(root, base.name, dockerfileText) : { files: [], fromStages: [] };
  const files = new Set(inherited.files);
  const fromStages = [...inherited.fromStages];
  for (const { sources, destination, fromStage } of stage.copies) {
    if (fromStage) {
      fromStages.push(...sources.map((source) => `${posix.normalize(destination)} (from ${fromStage}: ${source})`));
      continue;
    }
    for (const source of sources) {
      if (/[*?[]/.test(source)) throw new Error(`COPY ${source}: wildcards are not expanded here`);
      for (const file of contextFiles(root, source)) files.add(landingPath(root, source, file, destination));
    }
  }
  return { files: [...files].sort(), fromStages };
}

/** The chart's templates (YAML files, subfolders included), relative to the templates folder. */
function templateFiles(folder, prefix = '') {
  return readdirSync(join(folder, prefix)).sort().flatMap((name) => {
    const path = posix.join(prefix, name);
    if (statSync(join(folder, path)).isDirectory()) return templateFiles(folder, path);
    return name.endsWith('.yaml') ? [path] : [];
  });
}

/**
 * The chart's containers that run `node <entry>`, with the image each runs: `switch` for the
 * chart's image (`fspiop-switch.image`), `loadtest` for the load test's (`loadTest.image`).
 * Read from the templates and values.yaml (the entries of `components`), so no helm is needed.
 * A container running inline code (`node --input-type=module -e …`) has no entry file.
 */
export function chartNodeEntries(root, load) {
  const chart = join(root, 'charts', 'fspiop-switch');
  const values = load(readFileSync(join(chart, 'values.yaml'), 'utf8'));
  const templates = join(chart, 'templates');
  const entries = [];
  for (const name of templateFiles(templates)) {
    const text = readFileSync(join(templates, name), 'utf8');
    const loadTestImage = /\$image := [^\n]*\$lt\.image\.repository/.test(text);
    // Each container: its image line, then its command, either inline (["node", "x"]) or as a list.
    for (const match of text.matchAll(/image: \{\{ ([^}]+) \}\}\n(?:(?!\s+image:).*\n)*?\s+command:(?: \["node", ([^\]]+)\]|\n\s+- node\n\s+- (\S+))/g)) {
      const [, imageExpression, inlineEntry, listedEntry] = match;
      const image = imageExpression.includes('"fspiop-switch.image"') ? 'switch'
        : imageExpression.trim() === '$image' && loadTestImage ? 'loadtest' : `unknown image ${imageExpression.trim()}`;
      const entry = (inlineEntry ?? listedEntry).replace(/"/g, '').trim();
      if (entry.startsWith('-')) continue;
      const fromValues = entry.match(/^\{\{ \$c\.entry \| quote \}\}$/);
      if (!fromValues) entries.push({ template: name, image, entry });
      else for (const [component, settings] of Object.entries(values.components)) entries.push({ template: `${name} (${component})`, image, entry: settings.entry });
    }
  }
  return entries;
}

/** The relative imports of a JavaScript file, resolved to paths relative to root. */
export function relativeImports(root, file) {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(/(?:^import [^;]*?from |^export [^;]*? from |import\()'(\.{1,2}\/[^']+)'/gm)]
    .map((match) => posix.normalize(posix.join(posix.dirname(file), match[1])));
}
