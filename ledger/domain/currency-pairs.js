// The currency pairs an FXP converts (source → target), registered with it through the admin
// API. A participant with at least one pair is an FXP (ledger/migrations' fxp_currency_pair
// says why there is no separate flag). Decided on prefetched rows.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { ACCOUNT_TYPE } from './participants.js';

/**
 * Whether `participant` may register the pair `sourceCurrency` → `targetCurrency`: not the
 * hub, two different currencies, and a POSITION account in each of them already (the FXP is
 * onboarded in both through POST /participants, as central-ledger adds a currency), so that a
 * pair never names a currency the FXP could not hold a position in. `accounts` are the
 * participant's (`{ currency, type }`); `pairs` its registered ones.
 */
export function decideCurrencyPairRegistration({ participant, hubName, sourceCurrency, targetCurrency, accounts, pairs }) {
  if (participant.name === hubName) return failure(FAILURE.validation, 'the hub converts no currencies: pairs are registered with FXPs only');
  if (sourceCurrency === targetCurrency) return failure(FAILURE.validation, `a currency pair converts between two currencies, not ${sourceCurrency} to itself`);
  const held = new Set(accounts.filter((account) => account.type === ACCOUNT_TYPE.position).map((account) => account.currency));
  const missing = [sourceCurrency, targetCurrency].filter((currency) => !held.has(currency));
  if (missing.length > 0) {
    return failure(FAILURE.accountNotFound, `${participant.name} has no POSITION account in ${missing.join(' and ')}: add the currency (POST /participants) first`);
  }
  if (pairs.some((pair) => pair.sourceCurrency === sourceCurrency && pair.targetCurrency === targetCurrency)) {
    return failure(FAILURE.alreadyExists, `Currency pair ${sourceCurrency}/${targetCurrency} has already been registered`);
  }
  return { ok: true };
}
