// The portal's HTTP server: the single-page application's files, and /api/<api>/… forwarded
// to the operator APIs (forward.js). Every answer carries headers that keep the page from
// being framed, sniffed or leaking its address, and a content security policy that lets the
// page load and call only its own origin.
import { createHttpServer } from '../../platform/http/server.js';
import { forwardingHandler } from './forward.js';

const SECURITY_HEADERS = Object.freeze({
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    + "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
});

function addSecurityHeaders(request, h) {
  const response = request.response;
  const headers = response.isBoom ? response.output.headers : null;
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    if (headers) headers[name] = value;
    else response.header(name, value);
  }
  return h.continue;
}

function assetResponse(h, asset, request, cacheControl) {
  if (request.headers['if-none-match'] === asset.etag) return h.response().code(304).header('etag', asset.etag);
  return h.response(asset.bytes).type(asset.type).header('etag', asset.etag).header('cache-control', cacheControl);
}

function assetRoutes(assets) {
  // The bundle's file names carry their content's hash, so they may be kept; the page itself
  // is asked for again each time, so a new bundle is picked up on the next load.
  const page = (request, h) => assetResponse(h, assets['/index.html'], request, 'no-cache');
  return [
    { method: 'GET', path: '/', options: { auth: false }, handler: page },
    {
      method: 'GET',
      path: '/assets/{file*}',
      options: { auth: false },
      handler: (request, h) => {
        const asset = assets[`/assets/${request.params.file}`];
        if (!asset) return h.response({ errorInformation: { errorCode: '3002', errorDescription: 'Unknown URI' } }).code(404);
        return assetResponse(h, asset, request, 'public, max-age=31536000, immutable');
      },
    },
  ];
}

function forwardRoutes(handler) {
  const path = '/api/{upstream}/{path*}';
  const payload = { parse: false, output: 'data' };
  return [
    { method: ['GET', 'DELETE'], path, handler },
    { method: ['POST', 'PUT'], path, options: { payload }, handler },
  ];
}

export function createPortalServer({ config, assets, logger, metrics }) {
  const server = createHttpServer({ port: config.httpPort, host: config.httpHost, logger, metrics, health: async () => ({}) });
  server.ext('onPreResponse', addSecurityHeaders);
  const forward = forwardingHandler({ upstreams: config.upstreams, timeoutMs: config.upstreamTimeoutMs, logger, metrics });
  server.route([...assetRoutes(assets), ...forwardRoutes(forward)]);
  return server;
}
