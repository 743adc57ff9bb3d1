// Which foreign-exchange providers (FXPs) a DFSP is told of when it asks GET /services/FXP or
// GET /services/FXP/{SourceCurrency}/{TargetCurrency} (FSPIOP v2.0). An FXP is a participant
// with currency pairs registered (ledger/domain/currency-pairs.js); it is named only when it
// could take part in a conversion now: it is active, and it holds an active position account
// in both currencies of a pair it converts, so that an fx quote and an fx transfer to it can
// pass the ledger's checks. Decided on what the ledger's directory read (`candidates`).
import { FAILURE, failure } from '../../platform/domain/failures.js';

/** The specification's limit on the providers one answer names (ServicesFXPPutResponse). */
export const PROVIDERS_MAX = 16;

const CURRENCY = /^[A-Z]{3}$/;

/**
 * Why the path's pair cannot be asked about (`{ failure }`, answered at once with 3100), or
 * null: two ISO 4217 codes, and two different ones, since nothing converts a currency into itself.
 */
export function currencyPairFailure({ sourceCurrency, targetCurrency }) {
  const malformed = [sourceCurrency, targetCurrency].filter((currency) => !CURRENCY.test(currency));
  if (malformed.length > 0) return failure(FAILURE.validation, `${malformed.join(' and ')} is not an ISO 4217 currency code`);
  if (sourceCurrency === targetCurrency) return failure(FAILURE.validation, `SourceCurrency and TargetCurrency are both ${sourceCurrency}: nothing to convert`);
  return null;
}

/** The pairs of `candidate` it could convert now: registered, with an active position in both currencies. */
function servablePairs(candidate) {
  const held = new Set(candidate.activePositionCurrencies);
  return candidate.pairs.filter((pair) => held.has(pair.sourceCurrency) && held.has(pair.targetCurrency));
}

/**
 * The answer's body, `{ providers }`: the names of the active FXPs among `candidates`
 * (`[{ name, isActive, pairs: [{ sourceCurrency, targetCurrency }], activePositionCurrencies }]`)
 * that serve the pair asked (`sourceCurrency` and `targetCurrency`, or neither for
 * GET /services/FXP: any pair), in name order, at most PROVIDERS_MAX. None serving it is the
 * empty list: the specification's answer when no participant offers the service is the PUT
 * with nothing in it (there is no /services error callback in FSPIOP v2.0). The hub and the
 * requester (`requester`) are never named: a DFSP does not buy its own conversion through the
 * switch.
 */
export function decideFxpProviders({ candidates, sourceCurrency, targetCurrency, hubName, requester }) {
  const asked = (pair) => sourceCurrency === undefined || (pair.sourceCurrency === sourceCurrency && pair.targetCurrency === targetCurrency);
  const providers = candidates
    .filter((candidate) => candidate.isActive && candidate.name !== hubName && candidate.name !== requester)
    .filter((candidate) => servablePairs(candidate).some(asked))
    .map((candidate) => candidate.name)
    .sort();
  return { providers: [...new Set(providers)].slice(0, PROVIDERS_MAX) };
}
