// The portal's one way to the operator APIs: a request from the signed-in browser, forwarded
// with the operator's own bearer token to the API it names. The portal adds no authority of
// its own, so what an operator may do in the portal is exactly what their token may do at the
// API; and it forwards only the headers an operator API reads, so nothing else of the
// browser's reaches the switch.
import { request as send } from 'undici';
import { errorInformation } from '../../platform/fspiop/errors.js';
import { metricOnce } from '../../platform/metrics.js';

const FORWARDED_REQUEST_HEADERS = Object.freeze(['authorization', 'content-type', 'accept']);
const FORWARDED_RESPONSE_HEADERS = Object.freeze(['content-type', 'www-authenticate']);

/** What the browser asked of `upstream`, as the URL the API serves it at (path and query kept as sent). */
export function upstreamUrl(baseUrl, upstreamName, requestUrl) {
  const prefix = `/api/${upstreamName}`;
  const path = requestUrl.pathname.slice(prefix.length) || '/';
  return `${baseUrl.replace(/\/+$/, '')}${path}${requestUrl.search}`;
}

function pickHeaders(headers, names) {
  const picked = {};
  for (const name of names) if (headers[name] !== undefined) picked[name] = headers[name];
  return picked;
}

/**
 * A hapi handler that forwards to the API named by the route's `upstream` parameter. An API
 * that cannot be reached or does not answer in time is an FSPIOP 2003 the portal can show,
 * never a hang or a bare 500.
 */
export function forwardingHandler({ upstreams, timeoutMs, logger, metrics }) {
  const failures = metricOnce(metrics, metrics.client.Counter, {
    name: 'portal_upstream_failures_total',
    help: 'Requests the portal could not forward to an operator API, by API and reason',
    labelNames: ['upstream', 'reason'],
  });
  return async (request, h) => {
    const name = request.params.upstream;
    const baseUrl = upstreams[name];
    if (!baseUrl) return h.response(errorInformation(3002, `the portal forwards to ${Object.keys(upstreams).join(', ')}, not ${name}`)).code(404);
    const url = upstreamUrl(baseUrl, name, request.url);
    try {
      const answer = await send(url, {
        method: request.method.toUpperCase(),
        headers: pickHeaders(request.headers, FORWARDED_REQUEST_HEADERS),
        body: Buffer.isBuffer(request.payload) && request.payload.length > 0 ? request.payload : undefined,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      const bytes = Buffer.from(await answer.body.arrayBuffer());
      const response = h.response(bytes).code(answer.statusCode);
      for (const [header, value] of Object.entries(pickHeaders(answer.headers, FORWARDED_RESPONSE_HEADERS))) response.header(header, value);
      return response;
    } catch (error) {
      const timedOut = /Timeout/.test(error.code ?? '') || /Timeout/.test(error.name ?? '');
      failures.inc({ upstream: name, reason: timedOut ? 'timeout' : 'unreachable' });
      logger.warn({ upstream: name, path: request.url.pathname, code: error.code }, 'an operator API did not answer the portal');
      const detail = timedOut ? `the ${name} API did not answer within ${timeoutMs} ms` : `the ${name} API cannot be reached (${error.code ?? error.message})`;
      return h.response(errorInformation(2003, detail)).code(timedOut ? 504 : 503);
    }
  };
}
