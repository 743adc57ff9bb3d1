// Repeated query parameters against every operator API. hapi hands a parameter given twice
// to a route as an array; the operator APIs take each parameter once and answer a repeated
// one 400 with 3100 (platform/http/operator-server.js). Schemathesis reaches the admin and
// ALS admin APIs only, and sends an array only where a document allows one, so this probe
// sends every query parameter of every operator route twice, the settlement API's and the
// built-in oracle's included, and lists every answer that is not that refusal.
import { ADMIN_QUERY_PARAMETERS, ALS_ADMIN_QUERY_PARAMETERS } from './admin-openapi.js';
import { WINDOW_FILTERS } from '../../ledger/settlement-api/window-routes.js';
import { SETTLEMENT_FILTERS } from '../../ledger/settlement-api/settlement-routes.js';

/** Query parameters by API and route (`METHOD path`), as each route reads them. */
export const OPERATOR_QUERY_ROUTES = Object.freeze({
  admin: Object.fromEntries(Object.entries(ADMIN_QUERY_PARAMETERS).map(([path, names]) => [`GET ${path}`, names])),
  settlement: { 'GET /v2/settlementWindows': WINDOW_FILTERS, 'GET /v2/settlements': SETTLEMENT_FILTERS },
  alsAdmin: Object.fromEntries(Object.entries(ALS_ADMIN_QUERY_PARAMETERS).map(([path, names]) => [`GET ${path}`, names])),
  // account-lookup/oracle/routes.js: a sub-id in the query on every party route, a currency on a lookup.
  oracle: {
    'GET /participants/{Type}/{ID}': ['partySubIdOrType', 'currency'],
    'DELETE /participants/{Type}/{ID}': ['partySubIdOrType'],
    'GET /participants/{Type}/{ID}/{SubId}': ['currency'],
  },
});

const PATH_VALUES = Object.freeze({ name: 'payerfsp', Type: 'MSISDN', ID: '27710000001', SubId: 'home' });

// Two values each valid on its own where the route checks the value, so that without the
// refusal the array would reach the route's query and not stop at a format check.
const VALUE_PAIRS = Object.freeze({
  currency: ['USD', 'EUR'], state: ['OPEN', 'CLOSED'], method: ['GET', 'POST'], isProxy: ['true', 'false'],
  from: ['2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z'], to: ['2030-01-01T00:00:00Z', '2031-01-01T00:00:00Z'],
  fromDateTime: ['2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z'], toDateTime: ['2030-01-01T00:00:00Z', '2031-01-01T00:00:00Z'],
  beforeId: ['10', '20'], limit: ['10', '20'], participantId: ['1', '2'], accountId: ['1', '2'], settlementWindowId: ['1', '2'],
});

/** Every probe: `{ api, method, path, parameter }` with the path's URL, query included. */
export function repeatedQueryProbes() {
  const probes = [];
  for (const [api, routes] of Object.entries(OPERATOR_QUERY_ROUTES)) {
    for (const [route, parameters] of Object.entries(routes)) {
      const [method, template] = route.split(' ');
      const path = template.replace(/\{(\w+)\}/g, (whole, name) => PATH_VALUES[name]);
      for (const parameter of parameters) {
        const [first, second] = VALUE_PAIRS[parameter] ?? ['a', 'b'];
        const query = new URLSearchParams([[parameter, first], [parameter, second]]);
        probes.push({ api, method, path: `${path}?${query}`, parameter });
      }
    }
  }
  return probes;
}

/** Why an answer to a probe is not the refusal it should be, or null. */
export function repeatedQueryProblem(probe, status, text) {
  let code;
  let description = '';
  try {
    ({ errorCode: code, errorDescription: description = '' } = JSON.parse(text).errorInformation ?? {});
  } catch { /* not JSON: reported below */ }
  if (status === 400 && code === '3100' && description.includes(`'${probe.parameter}'`)) return null;
  return `${probe.api} ${probe.method} ${probe.path}: HTTP ${status} ${text.slice(0, 160)}`;
}

/**
 * Sends every probe to the APIs at `urls` (`{ admin, settlement, alsAdmin, oracle }`) with
 * `headers`; resolves to the problems found, empty if none.
 */
export async function checkRepeatedQueryParameters({ urls, headers }) {
  const problems = [];
  for (const probe of repeatedQueryProbes()) {
    if (!urls[probe.api]) throw new Error(`checkRepeatedQueryParameters: no URL for the ${probe.api} API`);
    const response = await fetch(`${urls[probe.api]}${probe.path}`, { method: probe.method, headers });
    const problem = repeatedQueryProblem(probe, response.status, await response.text());
    if (problem) problems.push(problem);
  }
  return problems;
}
