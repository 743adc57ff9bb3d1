// The foreign-exchange provider (FXP) of the load test, statelessly as the payees are: it
// answers POST /fxQuotes with its terms at `config.fxRate` (PUT /fxQuotes/{ID}) and POST
// /fxTransfers with `conversionState: RESERVED` (PUT /fxTransfers/{ID}), in FSPIOP v2.0, the
// only version these resources exist in. The conversion's condition is the SHA-256 of a
// fulfilment derived from the FXP's secret and the conversion's id (the fx transfer's
// commitRequestId is the fx quote's conversionId, perf/simulators/conversion.js), so the
// fulfilment it reserves with matches the condition it quoted without keeping either. The
// switch's PATCH (the conversion COMMITTED or ABORTED with its payment) is only counted.
import { createHash, createHmac } from 'node:crypto';
import { answerAs } from './fspiop.js';
import { secretOf } from './payee.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';
import { formatAmount, parseAmount } from '../../ledger/domain/money.js';

/** The fulfilment of conversion `conversionId` and its condition (base64url), from the FXP's secret. */
export function fxSecretPair(secret, conversionId) {
  const fulfilment = createHmac('sha256', secret).update(`fx:${conversionId}`).digest();
  return { fulfilment: fulfilment.toString('base64url'), condition: createHash('sha256').update(fulfilment).digest('base64url') };
}

// Fraction digits the target amount is cut to: every currency the load test converts into
// has two (ISO 4217), and none of its amounts needs more.
const TARGET_SCALE_UNITS = 100n;

/**
 * `amount` (a decimal string) converted at `rate` (a decimal string), cut to the target
 * currency's cents, as a decimal string: scaled BigInts throughout, never a Number.
 */
export function convertAmount(amount, rate) {
  const source = parseAmount(amount);
  const factor = parseAmount(rate);
  if (typeof source !== 'bigint' || typeof factor !== 'bigint') throw new Error(`cannot convert ${amount} at ${rate}`);
  const converted = (source * factor) / 10_000n;
  return formatAmount(converted - (converted % TARGET_SCALE_UNITS));
}

/** The FXP's answer to an FxQuotesPostRequest: its terms with the target amount, and the condition. */
export function fxQuoteAnswer(config, name, request) {
  const terms = request.conversionTerms;
  const { condition } = fxSecretPair(secretOf(config, name), terms.conversionId);
  return {
    condition,
    conversionTerms: { ...terms, targetAmount: { currency: terms.targetAmount.currency, amount: convertAmount(terms.sourceAmount.amount, config.fxRate) } },
  };
}

const answerHeaders = (resource, name, payer) => dfspHeaders(resource, name, payer, { accept: false, version: '2.0' });

/** Handles a request the switch sent to FXP `name` (already answered); undefined when it is none of the FXP's. */
export function answerAsFxp(config, name, method, parts, text, requestHeaders) {
  const payer = requestHeaders['fspiop-source'];
  if (method === 'POST' && parts[0] === 'fxQuotes') {
    const request = JSON.parse(text);
    return answerAs(config, name, `${config.quotingUrl}/fxQuotes/${request.conversionRequestId}`, 'PUT', answerHeaders('fxQuotes', name, payer),
      JSON.stringify(fxQuoteAnswer(config, name, request)));
  }
  if (method === 'POST' && parts[0] === 'fxTransfers') {
    const { commitRequestId } = JSON.parse(text);
    const body = { conversionState: 'RESERVED', fulfilment: fxSecretPair(secretOf(config, name), commitRequestId).fulfilment, completedTimestamp: new Date().toISOString() };
    return answerAs(config, name, `${config.transfersUrl}/fxTransfers/${commitRequestId}`, 'PUT', answerHeaders('fxTransfers', name, payer), JSON.stringify(body));
  }
  return undefined;
}
