// The HTTP base every process shares: /health, /metrics, request metrics, and one mapping
// from framework errors (unknown route, payload too large, bad JSON) to FSPIOP errors, so
// no caller ever sees a bare 500 or a non-FSPIOP error body.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import Hapi from '@hapi/hapi';
import { errorInformation, failureToFspiop } from '../fspiop/errors.js';
import { parseJsonPreservingNumbers, stringifyJson, MalformedJsonError } from './json.js';
import { FAILURE, failure } from '../domain/failures.js';

export const PAYLOAD_BYTES_MAX = 64 * 1024;

/**
 * The most bytes of request line and headers a server reads (Node's own default, set here so
 * that a runtime flag cannot widen it): an FSPIOP request needs about 2 KB even with a JWS
 * signature, and each forwarded header is bounded again by the edge (headers.js).
 */
export const HEADER_BYTES_MAX = 16 * 1024;

/**
 * Node answers headers beyond HEADER_BYTES_MAX with a bare 431, and hapi's parser error
 * handler with a bare 400; neither has a body a DFSP can read. This answers them with an
 * FSPIOP error and leaves every other parser error to hapi's handler.
 */
function answerHeaderOverflowAsFspiop(listener) {
  const frameworkHandlers = listener.listeners('clientError');
  listener.removeAllListeners('clientError');
  listener.on('clientError', (error, socket) => {
    if (error.code === 'HPE_HEADER_OVERFLOW' && socket.writable) {
      const body = JSON.stringify(errorInformation(3100, `the request headers exceed ${HEADER_BYTES_MAX} bytes`));
      socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\n`
        + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      return;
    }
    for (const handler of frameworkHandlers) handler.call(listener, error, socket);
  });
}

/** The switch's version and when this process started, as every /health states them. */
const VERSION_NUMBER = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).version;
const START_TIME = new Date(Date.now() - process.uptime() * 1000).toISOString();

/** Framework (Boom) statuses that have a specific FSPIOP meaning. */
const BOOM_STATUS_TO_FSPIOP = Object.freeze({ 400: 3101, 404: 3002, 405: 3000, 413: 3104, 415: 3101 });

/**
 * `host` has no default: each composition root passes the address its configuration chose
 * (config.httpHost), so no server binds wider than its operator asked for. `healthPaths` are
 * where /health is answered (an API under a base path answers it there too).
 */
export function createHttpServer({ port, host, tls, logger, metrics, health, healthPaths = ['/health'] }) {
  if (!host) throw new Error('createHttpServer needs the host to bind to');
  const listener = tls ? https.createServer({ ...tls, maxHeaderSize: HEADER_BYTES_MAX }) : http.createServer({ maxHeaderSize: HEADER_BYTES_MAX });
  const server = Hapi.server({
    port,
    host,
    listener,
    tls: Boolean(tls),
    routes: { payload: { maxBytes: PAYLOAD_BYTES_MAX } },
    router: { stripTrailingSlash: true },
  });
  answerHeaderOverflowAsFspiop(server.listener);
  server.ext('onPreResponse', (request, h) => mapErrorResponse(request, h, logger));
  server.events.on('response', (request) => recordRequest(request, metrics));
  // Probes and Prometheus must reach these without a token, whatever else needs one.
  for (const path of healthPaths) {
    server.route({ method: 'GET', path, options: { auth: false }, handler: (request, h) => answerHealth(h, health) });
  }
  server.route({
    method: 'GET',
    path: '/metrics',
    options: { auth: false },
    handler: async (request, h) => h.response(await metrics.registry.metrics()).type(metrics.registry.contentType),
  });
  return server;
}

/**
 * /health in Mojaloop's shape (central-services-shared's health check): `status` OK or DOWN,
 * `uptime` in seconds, `startTime`, `versionNumber`, and `services` with each check's name
 * (`broker`, `datastore`, and a consumer's own) and status. `health()` maps each check's name
 * to its status, or to `{ status, reason }` when it can say why (a consumer STOPPED,
 * NOT_POLLING, ...); any status but OK makes the process DOWN, answered 503.
 */
async function answerHealth(h, health) {
  const services = Object.entries(await health())
    .map(([name, check]) => (typeof check === 'string' ? { name, status: check } : { name, ...check }));
  const healthy = services.every(({ status }) => status === 'OK');
  const body = {
    status: healthy ? 'OK' : 'DOWN',
    uptime: process.uptime(),
    startTime: START_TIME,
    versionNumber: VERSION_NUMBER,
    services,
  };
  return h.response(body).code(healthy ? 200 : 503);
}

function mapErrorResponse(request, h, logger) {
  const response = request.response;
  if (!response.isBoom) return h.continue;
  const status = response.output.statusCode;
  if (status >= 500) {
    logger.error({ err: response, route: request.route.path, method: request.method }, 'request failed');
    return h.response(errorInformation(2001)).code(500);
  }
  const code = BOOM_STATUS_TO_FSPIOP[status] ?? 3000;
  const body = errorInformation(code, response.output.payload.message);
  return h.response(body).code(code === 3002 ? 404 : status === 413 ? 413 : 400);
}

function recordRequest(request, metrics) {
  const seconds = (request.info.responded - request.info.received) / 1000;
  if (seconds < 0 || !request.response) return;
  const status = request.response.statusCode ?? request.response.output?.statusCode ?? 0;
  metrics.httpRequestDuration.observe({ route: request.route.path, method: request.method.toUpperCase(), status }, seconds);
}

/** A JSON answer whose amounts were marked with jsonNumber(); written without Number. */
export function jsonResponse(h, value, status = 200) {
  return h.response(stringifyJson(value)).type('application/json').code(status);
}

export function emptyResponse(h, status) {
  return h.response().code(status);
}

export function failureResponse(h, domainFailure) {
  const { httpStatus, body } = failureToFspiop(domainFailure);
  return h.response(body).code(httpStatus);
}

/** Route options for a JSON body that the handler parses itself (raw bytes kept). */
export const RAW_JSON_PAYLOAD = Object.freeze({ parse: false, output: 'data', maxBytes: PAYLOAD_BYTES_MAX });

/**
 * Parses and validates a raw JSON body with a compiled schema validator. Returns
 * `{ body }` or `{ failure }` with the FSPIOP code chosen as DESIGN.md says: malformed
 * JSON and a malformed currency 3101, a missing element 3102, any other schema violation 3100.
 */
export function readJsonBody(request, validate) {
  const bytes = request.payload;
  if (!Buffer.isBuffer(bytes) || bytes.length === 0) {
    return { failure: failure(FAILURE.missingElement, 'request body is required') };
  }
  let body;
  try {
    body = parseJsonPreservingNumbers(bytes);
  } catch (error) {
    if (error instanceof MalformedJsonError) return { failure: failure(FAILURE.malformedSyntax, 'body is not valid JSON') };
    throw error;
  }
  if (validate(body)) return { body };
  return { failure: schemaFailure(validate.errors) };
}

function schemaFailure(errors) {
  const missing = errors.find((error) => error.keyword === 'required');
  if (missing) {
    const path = `${missing.instancePath}/${missing.params.missingProperty}`;
    return failure(FAILURE.missingElement, `${path} is required`);
  }
  // central-ledger's validation answers a currency that is not three capital letters as
  // malformed syntax, and DFSP and operator tooling matches on those words.
  const currency = errors.find((error) => error.keyword === 'pattern' && error.instancePath.endsWith('/currency'));
  if (currency) return failure(FAILURE.malformedSyntax, `${currency.instancePath} ${currency.message}`);
  const detail = errors.map((error) => `${error.instancePath || 'body'} ${error.message}`).join(', ');
  return failure(FAILURE.validation, detail);
}

/** Route options for a handler that takes a JSON body validated by `validator`. */
export function bodyRoute(method, path, validator, handler) {
  return {
    method,
    path,
    options: { payload: RAW_JSON_PAYLOAD },
    handler: async (request, h) => {
      const { body, failure: invalid } = readJsonBody(request, validator);
      if (invalid) return failureResponse(h, invalid);
      return handler(request, h, body);
    },
  };
}
