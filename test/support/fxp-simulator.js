// What a test DFSP does as a foreign exchange provider (FXP), for the demo and the tests of
// currency conversion (FSPIOP v2.0): it answers POST /fxQuotes with its terms at a fixed rate
// and a condition, and POST /fxTransfers by reserving the conversion (PUT conversionState
// RESERVED) with the fulfilment of that condition. Like a payee's ILP work, the fulfilment is
// derived from the FXP's secret, here over the conversion's id: fulfilment =
// HMAC-SHA256(secret, conversionId), condition = SHA-256(fulfilment). The fx transfer carries
// the conversion's id as its commitRequestId, so the FXP needs to keep nothing between the two.
import { createHash, createHmac } from 'node:crypto';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';
import { formatAmount, parseAmount } from '../../ledger/domain/money.js';

/** The currencies' minor units the FXP quotes in: a target amount is rounded down to cents. */
const TARGET_SCALE_FACTOR = 100n;
const LEDGER_FACTOR = 10000n;

/** The fulfilment of the FXP's condition for a conversion. */
export function fxFulfilmentFor(secret, conversionId) {
  return createHmac('sha256', secret).update(conversionId).digest('base64url');
}

export function fxConditionFor(secret, conversionId) {
  return createHash('sha256').update(Buffer.from(fxFulfilmentFor(secret, conversionId), 'base64url')).digest('base64url');
}

/**
 * `sourceAmount` (a decimal string) converted at `rate` (a decimal string), rounded down to
 * the target currency's cents: exact decimal arithmetic on scaled BigInts, never a Number.
 */
export function convertAmount(sourceAmount, rate) {
  const source = parseAmount(sourceAmount);
  const factor = parseAmount(rate);
  if (typeof source !== 'bigint' || typeof factor !== 'bigint') throw new Error(`cannot convert ${sourceAmount} at ${rate}`);
  const units = (source * factor) / LEDGER_FACTOR;
  return formatAmount(units - (units % (LEDGER_FACTOR / TARGET_SCALE_FACTOR)));
}

const fxHeaders = (resource, dfsp, destination) => dfspHeaders(resource, dfsp.name, destination, { accept: false, version: '2.0' });

/**
 * POST /fxQuotes: the FXP's terms (the target amount at its rate for the pair) and its
 * condition, PUT to the quoting edge; a pair it has no rate for is refused with 5100.
 */
export async function answerFxQuote(dfsp, call, send) {
  const { conversionRequestId, conversionTerms: terms } = call.body;
  const url = `${dfsp.urls.quotes}/fxQuotes/${conversionRequestId}`;
  const headers = fxHeaders('fxQuotes', dfsp, call.headers['fspiop-source']);
  const rate = dfsp.fxRates.get(`${terms.sourceAmount.currency}/${terms.targetAmount.currency}`);
  if (!rate || terms.amountType !== 'SEND') {
    await send(dfsp, `${url}/error`, 'PUT', headers, { errorInformation: { errorCode: '5100', errorDescription: `${dfsp.name} quotes no ${terms.amountType} conversion of ${terms.sourceAmount.currency} to ${terms.targetAmount.currency}` } });
    return;
  }
  const targetAmount = { amount: convertAmount(terms.sourceAmount.amount, rate), currency: terms.targetAmount.currency };
  await send(dfsp, url, 'PUT', headers, {
    condition: fxConditionFor(dfsp.secret, terms.conversionId),
    conversionTerms: { ...terms, targetAmount },
  });
}

/** POST /fxTransfers: the conversion reserved, with the fulfilment of the condition it quoted. */
export async function answerFxTransfer(dfsp, call, send) {
  const { commitRequestId, initiatingFsp } = call.body;
  await send(dfsp, `${dfsp.urls.transfers}/fxTransfers/${commitRequestId}`, 'PUT', fxHeaders('fxTransfers', dfsp, initiatingFsp), {
    conversionState: 'RESERVED', fulfilment: fxFulfilmentFor(dfsp.secret, commitRequestId), completedTimestamp: new Date().toISOString(),
  });
}
