// The payer's currency-conversion steps, in FSPIOP v2.0 (handlers/README.md, "Currency
// conversion"): which FXPs convert the pair (GET /services/FXP/{source}/{target}), the FXP's
// terms (POST /fxQuotes) and the conversion's reservation (POST /fxTransfers). bridge.js puts
// them between the lookup, the quote and the transfer of a conversion payment. Each resolves
// to the callback's outcome as roundTrip does: `{ body }`, `{ error, body }` or `{ timeout }`.
import { ownedId } from './correlator.js';
import { fxQuoteAnswer } from './fxp.js';
import { roundTrip } from './round-trip.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';
import { randomBytes } from 'node:crypto';

const v2Headers = (resource, payer, destination) => dfspHeaders(resource, payer, destination, { version: '2.0' });

/**
 * The FXPs that convert `source` into `target`, as the switch names them; without the switch's
 * lookup (modes other than full) the FXP the payment names. An answer naming none is a failure.
 */
export async function fxpDiscovery(context, { payer, fxp, source, target }) {
  if (context.config.mode !== 'full') return { body: { providers: [fxp] } };
  const path = `services/FXP/${source}/${target}`;
  const outcome = await roundTrip(context, `services:${payer}:FXP/${source}/${target}`, {
    url: `${context.config.alsUrl}/${path}`, method: 'GET', headers: v2Headers('services', payer), body: undefined,
  });
  if (!outcome.error && !outcome.timeout && !(outcome.body?.providers?.length > 0)) return { error: `no FXP converts ${source} into ${target}`, body: outcome.body };
  return outcome;
}

/**
 * The FXP's terms for converting `amount` of `source` into `target` for the payment
 * `determiningTransferId`: `{ body: { condition, conversionTerms } }`. The conversion's id is
 * `commitRequestId`, the id its fx transfer will have (the FXP derives its condition from it).
 * In mode transfer the bridge answers as the FXP itself.
 */
export async function fxQuote(context, { payer, fxp, commitRequestId, determiningTransferId, amount, source, target }) {
  const body = {
    conversionRequestId: ownedId(context.worker, context.config.runTag, randomBytes(12)),
    conversionTerms: {
      conversionId: commitRequestId, determiningTransferId, initiatingFsp: payer, counterPartyFsp: fxp, amountType: 'SEND',
      sourceAmount: { amount, currency: source }, targetAmount: { currency: target },
      expiration: new Date(Date.now() + context.config.expirationMs).toISOString(),
    },
  };
  if (context.config.mode === 'transfer') return { body: fxQuoteAnswer(context.config, fxp, body) };
  return roundTrip(context, `fxQuotes:${payer}:${body.conversionRequestId}`, {
    url: `${context.config.quotingUrl}/fxQuotes`, method: 'POST', headers: v2Headers('fxQuotes', payer, fxp), body: JSON.stringify(body),
  });
}

/**
 * The conversion on the quoted terms (POST /fxTransfers): the payer's source position is
 * reserved, and the FXP's PUT with `conversionState: RESERVED` is awaited. Sent again while its
 * fate is unknown, as a transfer is (its copies are prepare-topic records, as a transfer's are).
 */
export function fxTransfer(context, { payer, commitRequestId, terms, condition, waitMs }) {
  const body = {
    commitRequestId, determiningTransferId: terms.determiningTransferId, initiatingFsp: payer, counterPartyFsp: terms.counterPartyFsp,
    sourceAmount: terms.sourceAmount, targetAmount: terms.targetAmount, condition,
    expiration: new Date(Date.now() + context.config.expirationMs).toISOString(),
  };
  return roundTrip(context, `fxTransfers:${payer}:${commitRequestId}`, {
    url: `${context.config.transfersUrl}/fxTransfers`, method: 'POST', headers: v2Headers('fxTransfers', payer, terms.counterPartyFsp), body: JSON.stringify(body),
  }, { countResent: true, waitMs });
}
