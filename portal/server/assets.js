// The single-page application's files, built by portal/build.mjs into portal/dist and read
// into memory once at start: the bundle is small, and a portal that starts without one fails
// at once rather than on an operator's first page load.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, extname } from 'node:path';

const MEDIA_TYPES = Object.freeze({
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
});

/** Every file under `dir` as { '/path': { bytes, type, etag } }; throws when index.html is missing. */
export function loadAssets(dir) {
  const assets = {};
  const walk = (folder, prefix) => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) {
        walk(path, `${prefix}${name}/`);
        continue;
      }
      const bytes = readFileSync(path);
      const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`;
      assets[`${prefix}${name}`] = { bytes, type: MEDIA_TYPES[extname(name)] ?? 'application/octet-stream', etag };
    }
  };
  try {
    walk(dir, '/');
  } catch (error) {
    throw new Error(`the portal's bundle cannot be read from ${dir} (${error.code ?? error.message}): run npm run build:portal`, { cause: error });
  }
  if (!assets['/index.html']) throw new Error(`the portal's bundle in ${dir} has no index.html: run npm run build:portal`);
  return assets;
}
