// FSPIOP v2.0 /services/FXP: a DFSP asks which foreign-exchange providers (FXPs) it can buy a
// currency conversion from, for any pair or for one (SourceCurrency → TargetCurrency), and the
// hub answers with PUT /services/FXP[/{SourceCurrency}/{TargetCurrency}] naming them
// (`{ providers }`), signed as the hub, on the requester's FSPIOP_CALLBACK_URL_SERVICES (a
// base URL). Which FXPs are named is decided in domain/fxp-discovery.js on what the ledger's
// participant directory reads (ledger/ports/participant-directory.js). The resource exists in
// v2.0 only, so these routes speak version 2.0 alone (platform/fspiop/versions.js; 406 with
// 3001 to any other), and the answer, in the version it was asked in, is 2.0.
import { fspiopRoute, notImplementedRoute } from '../platform/fspiop/edge.js';
import { currencyPairFailure, decideFxpProviders } from './domain/fxp-discovery.js';
import { hubEvent } from './callbacks.js';
import { refuseUnknownSource } from './edge-flow.js';

const SERVICES_ENDPOINT = 'FSPIOP_CALLBACK_URL_SERVICES';
const ALL_PAIRS = '/services/FXP';
const ONE_PAIR = '/services/FXP/{SourceCurrency}/{TargetCurrency}';
const PAIR_PATH_SCHEMAS = Object.freeze({ SourceCurrency: 'Currency', TargetCurrency: 'Currency' });

/** The path the answer goes to, under the requester's base URL: the one it asked on. */
function answerPath(pair) {
  if (!pair) return ALL_PAIRS;
  return `${ALL_PAIRS}/${encodeURIComponent(pair.sourceCurrency)}/${encodeURIComponent(pair.targetCurrency)}`;
}

/**
 * The /services routes. `respond` comes from createResponder(); `directory` answers which
 * DFSPs are active; `findFxps(pair)` resolves to the ledger's FXP candidates for `pair`
 * (`{ sourceCurrency, targetCurrency }`, or `{}` for every pair).
 */
export function serviceRoutes({ respond, directory, findFxps, hubName }) {
  const discover = (pairOf) => async (accepted) => {
    const refusal = await refuseUnknownSource(directory, accepted);
    if (refusal) return { failure: refusal };
    const pair = pairOf(accepted.params);
    const invalid = pair && currencyPairFailure(pair);
    if (invalid) return { failure: invalid };
    const requester = accepted.headers['fspiop-source'];
    const body = decideFxpProviders({ candidates: await findFxps(pair ?? {}), ...pair, hubName, requester });
    const event = hubEvent({
      id: `${requester} ${answerPath(pair)}`, action: 'answer', hubName, accepted, endpointType: SERVICES_ENDPOINT,
      templateParams: {}, resource: 'services', body,
    });
    return { events: [{ ...event, callback: { ...event.callback, path: answerPath(pair) } }] };
  };

  const route = (path, decide) => fspiopRoute({
    resource: 'services', method: 'GET', path, pathSchemas: path === ONE_PAIR ? PAIR_PATH_SCHEMAS : {}, handle: respond(202, decide),
  });
  return [
    route(ALL_PAIRS, discover(() => undefined)),
    route(ONE_PAIR, discover((params) => ({ sourceCurrency: params.SourceCurrency, targetCurrency: params.TargetCurrency }))),
    // The answers go from the switch to DFSPs; DFSPs never send them here.
    notImplementedRoute({ method: 'PUT', path: ALL_PAIRS }),
    notImplementedRoute({ method: 'PUT', path: ONE_PAIR }),
  ];
}
