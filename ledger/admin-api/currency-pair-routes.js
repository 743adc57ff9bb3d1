// The currency pairs an FXP converts (central-ledger has no such route; these follow its
// style): GET and POST /participants/{name}/currencyPairs, DELETE …/{source}/{target}. A
// change needs the admin API's write scope and is audited as every admin change is.
import { bodyRoute, emptyResponse, jsonResponse } from '../../platform/http/server.js';
import { isDuplicateKeyError } from '../../platform/db.js';
import { FAILURE, failure, isFailure } from '../../platform/domain/failures.js';
import { decideCurrencyPairRegistration } from '../domain/currency-pairs.js';
import { accountsOfParticipants } from '../repositories/participants.js';
import { deleteCurrencyPair, insertCurrencyPair, listCurrencyPairs } from '../repositories/currency-pairs.js';
import { currencyPairView } from './views.js';
import { failureResponse, readQuery, resolveParticipant } from './route-helpers.js';
import { validators } from './schemas.js';

const CURRENCY = /^[A-Z]{3}$/;

export function currencyPairRoutes({ db, config, clock }) {
  async function registerPair(request, h, body) {
    const participant = await resolveParticipant(db, request);
    if (isFailure(participant)) return failureResponse(h, participant);
    const decision = decideCurrencyPairRegistration({
      participant, hubName: config.hubName, ...body,
      accounts: await accountsOfParticipants(db, [participant.id]), pairs: await listCurrencyPairs(db, participant.id),
    });
    if (isFailure(decision)) return failureResponse(h, decision);
    try {
      await insertCurrencyPair(db, { participantId: participant.id, ...body, createdBy: 'admin-api', now: clock() });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      return failureResponse(h, failure(FAILURE.alreadyExists, `Currency pair ${body.sourceCurrency}/${body.targetCurrency} has already been registered`));
    }
    return emptyResponse(h, 201);
  }

  async function removePair(request, h) {
    const { sourceCurrency, targetCurrency } = request.params;
    if (!CURRENCY.test(sourceCurrency) || !CURRENCY.test(targetCurrency)) {
      return failureResponse(h, failure(FAILURE.malformedSyntax, `${sourceCurrency}/${targetCurrency} is not a pair of ISO 4217 codes`));
    }
    const participant = await resolveParticipant(db, request);
    if (isFailure(participant)) return failureResponse(h, participant);
    const removed = await deleteCurrencyPair(db, { participantId: participant.id, sourceCurrency, targetCurrency });
    if (!removed) return failureResponse(h, failure(FAILURE.accountNotFound, `${participant.name} has no currency pair ${sourceCurrency}/${targetCurrency}`));
    return emptyResponse(h, 204);
  }

  async function getPairs(request, h) {
    const participant = await resolveParticipant(db, request);
    if (isFailure(participant)) return failureResponse(h, participant);
    const query = readQuery(request, []);
    if (isFailure(query)) return failureResponse(h, query);
    return jsonResponse(h, (await listCurrencyPairs(db, participant.id)).map(currencyPairView));
  }

  return [
    bodyRoute('POST', '/participants/{name}/currencyPairs', validators.currencyPair, registerPair),
    { method: 'DELETE', path: '/participants/{name}/currencyPairs/{sourceCurrency}/{targetCurrency}', handler: removePair },
    { method: 'GET', path: '/participants/{name}/currencyPairs', handler: getPairs },
  ];
}
