// Bundles the portal's single-page application (portal/app) into portal/dist: one script and
// one stylesheet named by their content's hash, and the page that loads them. Everything the
// page needs is in the bundle; nothing is fetched from elsewhere at run time.
//   node portal/build.mjs [--out <dir>]
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));
const outIndex = process.argv.indexOf('--out');
const outDir = outIndex > 0 ? process.argv[outIndex + 1] : join(here, 'dist');

rmSync(outDir, { recursive: true, force: true });
mkdirSync(join(outDir, 'assets'), { recursive: true });
const result = await build({
  entryPoints: [join(here, 'app/main.js')],
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['chrome110', 'firefox115', 'safari16'],
  outdir: join(outDir, 'assets'),
  entryNames: 'portal-[hash]',
  metafile: true,
  define: { 'process.env.NODE_ENV': '"production"' },
  logLevel: 'warning',
});
const outputs = Object.keys(result.metafile.outputs).map((path) => basename(path));
const script = outputs.find((name) => name.endsWith('.js'));
const style = outputs.find((name) => name.endsWith('.css'));
writeFileSync(join(outDir, 'index.html'), `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Switch operations</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/${style}">
<script type="module" src="/assets/${script}"></script>
</head>
<body><div id="root"></div></body>
</html>
`);
process.stdout.write(`portal bundle: ${outDir} (${outputs.join(', ')})\n`);
