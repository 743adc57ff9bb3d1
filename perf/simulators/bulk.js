// Bulk payments in the load test (handlers/README.md "Bulk transfers", quoting/README.md "Bulk
// quotes"), both sides, statelessly as the single payment's simulators are:
// - the payee DFSP answers POST /bulkQuotes with every individual quote's terms, ILP packet and
//   condition as it quotes a single payment (payee.js quoteAnswer), and POST /bulkTransfers with
//   every individual transfer's fulfilment (HMAC of its packet's data) and COMMITTED;
// - the payer's bridge runs a bulk of N payments to one payee (k6's POST /bulkPayments): the bulk
//   quote, then the bulk transfer of the quoted items, awaiting the hub's aggregated PUT
//   /bulkTransfers/{ID}, and answers how many items committed.
// Every id (bulk quote, bulk transfer, quote, transaction = transfer) is the run's (ownedId), so
// the validity gate finds the bulk, its items and their transfers by the run tag.
import { randomBytes } from 'node:crypto';
import { answerAs, sendAs } from './fspiop.js';
import { ownedId } from './correlator.js';
import { fulfilmentFor } from './payee-ilp.js';
import { quoteAnswer, secretOf } from './payee.js';
import { RESEND_INTERVAL_MS, roundTrip, sleep } from './round-trip.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';

// The states a bulk ends in (what its payer is told: `bulkTransferState`); any other (a resent
// bulk's current state, ACCEPTED or PROCESSING) is not the answer the payer waits for.
const FINAL_BULK_STATES = new Set(['COMPLETED', 'REJECTED']);
// A bulk transfer's outcome is told by its expiry at the latest, as a single transfer's
// (bridge.js EXPIRY_CALLBACK_GRACE_MS).
const EXPIRY_CALLBACK_GRACE_MS = 10_000;

// A payer that heard nothing of its bulk asks GET /bulkTransfers/{ID}, waits this long for the
// answer, and asks again (GET_ATTEMPTS in all) while the state told is not final, as a payer of
// a single transfer does (bridge.js).
const GET_ANSWER_WAIT_MS = 10_000;
const GET_ATTEMPTS = 3;

const runId = (context) => ownedId(context.worker, context.config.runTag, randomBytes(12));

/** The payee's IndividualQuoteResult for one IndividualQuote: the single quote's terms, the bulk's expiry being the bulk answer's. */
function individualQuoteResult(config, name, quote) {
  const { transferAmount, payeeReceiveAmount, ilpPacket, condition } = quoteAnswer(config, name, quote);
  return { quoteId: quote.quoteId, transferAmount, payeeReceiveAmount, ilpPacket, condition };
}

/** The payee's BulkQuotesIDPutResponse to a BulkQuotesPostRequest. */
export function bulkQuoteAnswer(config, name, request) {
  return {
    expiration: new Date(Date.now() + config.expirationMs).toISOString(),
    individualQuoteResults: request.individualQuotes.map((quote) => individualQuoteResult(config, name, quote)),
  };
}

/** The payee's BulkTransfersIDPutResponse: every individual transfer fulfilled, the bulk COMPLETED. */
export function bulkTransferAnswer(config, name, request) {
  const secret = secretOf(config, name);
  return {
    bulkTransferState: 'COMPLETED',
    completedTimestamp: new Date().toISOString(),
    individualTransferResults: request.individualTransfers.map(({ transferId, ilpPacket }) => ({ transferId, fulfilment: fulfilmentFor(secret, ilpPacket) })),
  };
}

/**
 * Handles a bulk request the switch sent to payee `name` (already answered 202); undefined when
 * it is none. The answer goes to the payer the body names: a bulk the hub cut to its reserved
 * items comes from the hub (FSPIOP-Source: Hub), yet is still the payer's bulk.
 */
export function answerBulkAsPayee(config, name, method, parts, text, requestHeaders) {
  if (method !== 'POST') return undefined;
  const answerHeaders = (resource, payer) => dfspHeaders(resource, name, payer, { accept: false });
  if (parts[0] === 'bulkQuotes') {
    const request = JSON.parse(text);
    return answerAs(config, name, `${config.quotingUrl}/bulkQuotes/${request.bulkQuoteId}`, 'PUT', answerHeaders('bulkQuotes', requestHeaders['fspiop-source']),
      JSON.stringify(bulkQuoteAnswer(config, name, request)));
  }
  if (parts[0] === 'bulkTransfers') {
    const request = JSON.parse(text);
    return answerAs(config, name, `${config.transfersUrl}/bulkTransfers/${request.bulkTransferId}`, 'PUT', answerHeaders('bulkTransfers', request.payerFsp),
      JSON.stringify(bulkTransferAnswer(config, name, request)));
  }
  return undefined;
}

/** A BulkQuotesPostRequest of `items` payments of `amount` to payee MSISDNs drawn from the payee's range. */
function bulkQuoteRequest(context, { payer, payee, items, amount, currency, msisdnFrom, msisdnCount }) {
  return {
    bulkQuoteId: runId(context),
    payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '10000000000', fspId: payer }, name: 'Perf Payer' },
    expiration: new Date(Date.now() + context.config.expirationMs).toISOString(),
    individualQuotes: Array.from({ length: items }, () => ({
      quoteId: runId(context),
      transactionId: runId(context),
      payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: String(msisdnFrom + Math.floor(Math.random() * msisdnCount)), fspId: payee } },
      amountType: 'SEND',
      amount: { amount, currency },
      transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
    })),
  };
}

/** The payee's terms for the bulk: `{ body: BulkQuotesIDPutResponse }`; in mode transfer the bridge answers as the payee itself. */
function bulkQuote(context, request, payee) {
  if (context.config.mode === 'transfer') return { body: bulkQuoteAnswer(context.config, payee, request) };
  return roundTrip(context, `bulkQuotes:${request.payer.partyIdInfo.fspId}:${request.bulkQuoteId}`, {
    url: `${context.config.quotingUrl}/bulkQuotes`, method: 'POST', headers: dfspHeaders('bulkQuotes', request.payer.partyIdInfo.fspId, payee), body: JSON.stringify(request),
  });
}

/**
 * The bulk transfer of the quoted items (those the payee quoted; an item it refused is left
 * out), awaiting the hub's aggregated answer. An answer that is not final (the state the hub
 * tells a payer that resent its bulk) is waited past, until the bulk's expiry and its grace;
 * then the payer asks for the bulk's state.
 */
async function bulkTransfer(context, { payer, payee, quoteRequest, quoted }) {
  const transactionIds = new Map(quoteRequest.individualQuotes.map((quote) => [quote.quoteId, quote.transactionId]));
  const body = {
    bulkTransferId: runId(context), bulkQuoteId: quoteRequest.bulkQuoteId, payerFsp: payer, payeeFsp: payee,
    individualTransfers: quoted.individualQuoteResults.filter((result) => !result.errorInformation).map((result) => ({
      transferId: transactionIds.get(result.quoteId), transferAmount: result.transferAmount, ilpPacket: result.ilpPacket, condition: result.condition,
    })),
    expiration: new Date(Date.now() + context.config.expirationMs).toISOString(),
  };
  const key = `bulkTransfers:${payer}:${body.bulkTransferId}`;
  const deadline = Date.now() + context.config.expirationMs + EXPIRY_CALLBACK_GRACE_MS;
  let outcome = await roundTrip(context, key, {
    url: `${context.config.transfersUrl}/bulkTransfers`, method: 'POST', headers: dfspHeaders('bulkTransfers', payer, payee), body: JSON.stringify(body),
  }, { countResent: true, waitMs: deadline - Date.now() });
  while (outcome.body && !outcome.error && !FINAL_BULK_STATES.has(outcome.body.bulkTransferState) && Date.now() < deadline) {
    outcome = await context.correlator.wait(key, deadline - Date.now());
  }
  if (outcome.timeout || !FINAL_BULK_STATES.has(outcome.body?.bulkTransferState)) {
    if (!outcome.error) outcome = await askBulkState(context, { payer, payee, bulkTransferId: body.bulkTransferId });
  }
  return { outcome, bulkTransferId: body.bulkTransferId, items: body.individualTransfers.length };
}

/**
 * A payer that was not told how its bulk ended asks for it (GET /bulkTransfers/{ID}): the hub
 * answers with the bulk's state and its items' results, so a bulk that completed after all is
 * known as such. Each GET is one fulfil-topic record and one notification (`asked`, for the gate).
 */
async function askBulkState(context, { payer, payee, bulkTransferId }) {
  const key = `bulkTransfers:${payer}:${bulkTransferId}`;
  for (let attempt = 1; attempt <= GET_ATTEMPTS; attempt += 1) {
    const waiting = context.correlator.wait(key, GET_ANSWER_WAIT_MS);
    context.counters.asked += 1;
    const sent = await sendAs(context.config, payer, `${context.config.transfersUrl}/bulkTransfers/${bulkTransferId}`, 'GET', dfspHeaders('bulkTransfers', payer, payee), undefined);
    if (sent.status !== 202) context.correlator.settle(key, { timeout: true });
    const outcome = await waiting;
    if (outcome.error || FINAL_BULK_STATES.has(outcome.body?.bulkTransferState)) return outcome;
    await sleep(RESEND_INTERVAL_MS);
  }
  return { timeout: true };
}

const failedOutcome = (outcome) => Boolean(outcome.timeout || outcome.error);

/**
 * One bulk payment, k6's single call per bulk iteration (POST /bulkPayments `{ payer, payee,
 * items, amount, currency, msisdnFrom, msisdnCount }`): the bulk quote, then the bulk transfer,
 * each phase's time in `phasesMs`. Answers `{ bulkTransferId, bulkTransferState, items,
 * committed }` (committed: the items the payer was told were fulfilled), or the phase that failed.
 */
export async function bulkPayment(context, params) {
  const phasesMs = {};
  const quoteRequest = bulkQuoteRequest(context, params);
  const quoteStarted = Date.now();
  const quoted = await bulkQuote(context, quoteRequest, params.payee);
  phasesMs.bulk_quote = Date.now() - quoteStarted;
  if (failedOutcome(quoted)) return { ...quoted, phase: 'bulk_quote', phasesMs };
  const transferStarted = Date.now();
  const { outcome, bulkTransferId, items } = await bulkTransfer(context, { payer: params.payer, payee: params.payee, quoteRequest, quoted: quoted.body });
  phasesMs.bulk_transfer = Date.now() - transferStarted;
  if (failedOutcome(outcome)) return { ...outcome, phase: 'bulk_transfer', phasesMs };
  const { bulkTransferState, individualTransferResults = [] } = outcome.body;
  if (!FINAL_BULK_STATES.has(bulkTransferState)) return { timeout: true, phase: 'bulk_transfer', phasesMs };
  const committed = individualTransferResults.filter((result) => result.fulfilment && !result.errorInformation).length;
  return { body: { bulkTransferId, bulkTransferState, items: params.items, quoted: items, committed }, phasesMs };
}
