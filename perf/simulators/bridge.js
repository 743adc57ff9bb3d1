// The payer bridge k6 calls synchronously: it sends the FSPIOP request to the switch as the
// payer DFSP and answers k6 when the switch's callback arrives (200 with the callback body),
// with the payee's or switch's error (502), or after a timeout (504). k6 calls the bridge of
// the process on whose port the payer's endpoints are registered (main.js), so the callbacks
// it waits for arrive in this process. Requests with a body go
// signed with the payer's key (fspiop.js), so k6, which only calls the bridge, needs no key.
import { randomBytes } from 'node:crypto';
import { reply, sendAs } from './fspiop.js';
import { ownedId } from './correlator.js';
import { RESEND_INTERVAL_MS, roundTrip, sleep } from './round-trip.js';
import { quoteAnswer } from './payee.js';
import { fxQuote, fxTransfer, fxpDiscovery } from './conversion.js';
import { requestToPay } from './request-to-pay.js';
import { bulkPayment } from './bulk.js';
import { involvesIso, isoPayment } from './iso-dfsp.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';

function finish(response, outcome, started) {
  const elapsed = Date.now() - started;
  const { phase, phasesMs } = outcome;
  if (outcome.timeout) return reply(response, 504, { error: 'timeout', elapsed, phase, phasesMs });
  if (outcome.error) return reply(response, 502, { error: outcome.error, body: outcome.body, elapsed, phase, phasesMs });
  return reply(response, 200, { ...outcome.body, elapsed, phasesMs });
}

// A payer that heard nothing asks GET /transfers/{ID}, waits this long for the answer, and
// asks again (GET_ATTEMPTS in all) while the answer is not final.
const GET_ANSWER_WAIT_MS = 10_000;
const GET_ATTEMPTS = 3;
// The switch tells a payer how its transfer ended by its expiry at the latest (3303 from the
// timeout handler, which sweeps every second): a transfer's callback is awaited that long.
export const EXPIRY_CALLBACK_GRACE_MS = 10_000;

/**
 * A payer that was not told how its transfer ended asks for it (GET /transfers/{ID}) as an
 * FSPIOP payer does: the switch answers with the state it holds, so a transfer that was
 * committed after all is known as such. An answer that is not final yet is asked again.
 */
export async function askTransferState(context, payer, payee, transferId) {
  const key = `transfers:${payer}:${transferId}`;
  for (let attempt = 1; attempt <= GET_ATTEMPTS; attempt += 1) {
    const waiting = context.correlator.wait(key, GET_ANSWER_WAIT_MS);
    context.counters.asked += 1;
    const sent = await sendAs(context.config, payer, `${context.config.transfersUrl}/transfers/${transferId}`, 'GET', dfspHeaders('transfers', payer, payee), undefined);
    if (sent.status !== 202) context.correlator.settle(key, { timeout: true });
    const outcome = await waiting;
    if (!outcome.timeout && !NOT_FINAL.has(outcome.error)) return outcome;
    await sleep(RESEND_INTERVAL_MS);
  }
  return { timeout: true };
}

const NOT_FINAL = new Set(['RECEIVED', 'RESERVED']);

/**
 * A QuotesPostRequest; a conversion payment's (v2.0) names its transaction and the payer's
 * conversion (`currencyConversion`); an ISO 20022 payment's ids are ULIDs (iso-dfsp.js).
 */
export function quoteRequest(context, {
  payer, payee, msisdn, amount, currency, transactionId = ownedId(context.worker, context.config.runTag, randomBytes(12)), currencyConversion,
  quoteId = ownedId(context.worker, context.config.runTag, randomBytes(12)),
}) {
  return {
    quoteId, transactionId,
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: msisdn, fspId: payee } },
    payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '10000000000', fspId: payer }, name: 'Perf Payer' },
    amountType: 'SEND', amount: { amount, currency },
    transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
    expiration: new Date(Date.now() + context.config.expirationMs).toISOString(),
    ...(currencyConversion ? { converter: 'PAYER', currencyConversion } : {}),
  };
}

export async function discovery(context, params) {
  const { payer, type, id } = params;
  if (context.config.mode !== 'full') return { body: { party: { partyIdInfo: { partyIdType: type, partyIdentifier: id, fspId: params.payee } } } };
  return roundTrip(context, `parties:${payer}:${type}/${id}`, {
    url: `${context.config.alsUrl}/parties/${type}/${id}`, method: 'GET', headers: dfspHeaders('parties', payer, undefined, { version: params.version }), body: undefined,
  });
}

export async function quote(context, params) {
  const body = quoteRequest(context, params);
  if (context.config.mode === 'transfer') {
    return { body: { quoteId: body.quoteId, transactionId: body.transactionId, ...quoteAnswer(context.config, params.payee, body) } };
  }
  const outcome = await roundTrip(context, `quotes:${params.payer}:${body.quoteId}`, {
    url: `${context.config.quotingUrl}/quotes`, method: 'POST', headers: dfspHeaders('quotes', params.payer, params.payee, { version: params.version }), body: JSON.stringify(body),
  });
  if (outcome.body && !outcome.error) outcome.body = { ...outcome.body, quoteId: body.quoteId, transactionId: body.transactionId };
  return outcome;
}

/** A TransfersPostRequest. */
export function transferRequest(context, { payer, payee, transferId, amount, currency, ilpPacket, condition }) {
  return {
    transferId, payerFsp: payer, payeeFsp: payee, amount: { amount, currency }, ilpPacket, condition,
    expiration: new Date(Date.now() + context.config.expirationMs).toISOString(),
  };
}

export async function transfer(context, params) {
  const { payer, payee, transferId, version } = params;
  const body = transferRequest(context, params);
  return awaitTransfer(context, payer, payee, transferId, {
    url: `${context.config.transfersUrl}/transfers`, method: 'POST', headers: dfspHeaders('transfers', payer, payee, { version }), body: JSON.stringify(body),
  });
}

/**
 * Sends a transfer's `request` and waits for its outcome until the transfer's expiry and a
 * grace; a payer told nothing by then asks for the transfer's state.
 */
export async function awaitTransfer(context, payer, payee, transferId, request) {
  const outcome = await roundTrip(context, `transfers:${payer}:${transferId}`, request, { countResent: true, waitMs: context.config.expirationMs + EXPIRY_CALLBACK_GRACE_MS });
  const final = outcome.timeout ? await askTransferState(context, payer, payee, transferId) : outcome;
  if (final.timeout || final.error) noteFailedTransfer(context, transferId, final);
  return final;
}

// The last transfers whose payer was told of no success, with what it was told: the gate
// compares them with the database when the two disagree (perf/run.js).
const FAILED_TRANSFERS_KEPT = 2_000;

function noteFailedTransfer(context, transferId, outcome) {
  const failed = context.counters.failedTransfers;
  if (failed.length >= FAILED_TRANSFERS_KEPT) failed.shift();
  failed.push({ transferId, at: new Date().toISOString(), outcome: outcome.timeout ? 'timeout' : String(outcome.error).slice(0, 200) });
}

export const failedOutcome = (outcome) => Boolean(outcome.timeout || outcome.error);

/**
 * One whole payment, k6's single call per iteration: discovery of `msisdn`, a quote to the
 * DFSP found, and the transfer of the quoted amount, each phase's time in `phasesMs`. The
 * first phase that fails ends the payment and is named in `phase`. One call instead of three
 * saves k6 and the bridge two HTTP exchanges per iteration.
 */
async function payment(context, { payer, payee, msisdn, amount, currency, conversion }) {
  if (conversion) return conversionPayment(context, { payer, payee, msisdn, amount, currency, ...conversion });
  if (context.config.isoDfsps.size > 0 && involvesIso(context.config, payer, payee)) return isoPayment(context, { payer, payee, msisdn, amount, currency });
  const { phasesMs, timed } = phaseTimer();
  const found = await timed('discovery', () => discovery(context, { payer, payee, type: 'MSISDN', id: msisdn }));
  if (failedOutcome(found)) return { ...found, phase: 'discovery', phasesMs };
  const payeeFsp = found.body?.party?.partyIdInfo?.fspId;
  const quoted = await timed('quote', () => quote(context, { payer, payee: payeeFsp, msisdn, amount, currency }));
  if (failedOutcome(quoted)) return { ...quoted, phase: 'quote', phasesMs };
  const { transactionId, transferAmount, ilpPacket, condition } = quoted.body;
  const transferred = await timed('transfer', () => transfer(context, {
    payer, payee: payeeFsp, transferId: transactionId, amount: transferAmount.amount, currency: transferAmount.currency, ilpPacket, condition,
  }));
  if (failedOutcome(transferred)) return { ...transferred, phase: 'transfer', phasesMs };
  return { body: { transferId: transactionId, transferState: transferred.body.transferState }, phasesMs };
}

/** `timed(phase, run)` runs a phase and records its time in `phasesMs`. */
export function phaseTimer() {
  const phasesMs = {};
  const timed = async (phase, run) => {
    const started = Date.now();
    const outcome = await run();
    phasesMs[phase] = Date.now() - started;
    return outcome;
  };
  return { phasesMs, timed };
}

/**
 * A payment across currencies (k6 posts `conversion: { fxp, targetCurrency }`), all in
 * FSPIOP v2.0: discovery of `msisdn` (the payee's party names the currency it holds), the
 * FXPs converting into it (`fxp_discovery`), the FXP's terms for `amount` of `currency`
 * (`fx_quote`), the payee's quote of the converted amount (`quote`), the conversion reserved
 * (`fx_transfer`) and the payment in the target currency that it is for (`transfer`), whose
 * commit commits the conversion too. The conversion's id (commitRequestId) is the run's, as a
 * transfer's is, so the gate finds both.
 */
async function conversionPayment(context, { payer, payee, msisdn, amount, currency, fxp, targetCurrency }) {
  const { phasesMs, timed } = phaseTimer();
  const version = '2.0';
  const failedIn = (phase, outcome) => ({ ...outcome, phase, phasesMs });
  const found = await timed('discovery', () => discovery(context, { payer, payee, type: 'MSISDN', id: msisdn, version }));
  if (failedOutcome(found)) return failedIn('discovery', found);
  const payeeFsp = found.body?.party?.partyIdInfo?.fspId;
  const target = found.body?.party?.supportedCurrencies?.[0] ?? targetCurrency;
  const providers = await timed('fxp_discovery', () => fxpDiscovery(context, { payer, fxp, source: currency, target }));
  if (failedOutcome(providers)) return failedIn('fxp_discovery', providers);
  const chosen = providers.body.providers.includes(fxp) ? fxp : providers.body.providers[0];
  const transferId = ownedId(context.worker, context.config.runTag, randomBytes(12));
  const commitRequestId = ownedId(context.worker, context.config.runTag, randomBytes(12));
  const terms = await timed('fx_quote', () => fxQuote(context, {
    payer, fxp: chosen, commitRequestId, determiningTransferId: transferId, amount, source: currency, target,
  }));
  if (failedOutcome(terms)) return failedIn('fx_quote', terms);
  const { conversionTerms, condition: fxCondition } = terms.body;
  const quoted = await timed('quote', () => quote(context, {
    payer, payee: payeeFsp, msisdn, amount: conversionTerms.targetAmount.amount, currency: target, transactionId: transferId, version,
    currencyConversion: { sourceAmount: conversionTerms.sourceAmount, targetAmount: conversionTerms.targetAmount },
  }));
  if (failedOutcome(quoted)) return failedIn('quote', quoted);
  const waitMs = context.config.expirationMs + EXPIRY_CALLBACK_GRACE_MS;
  const reserved = await timed('fx_transfer', () => fxTransfer(context, { payer, commitRequestId, terms: conversionTerms, condition: fxCondition, waitMs }));
  if (failedOutcome(reserved)) return failedIn('fx_transfer', reserved);
  const { transferAmount, ilpPacket, condition } = quoted.body;
  const transferred = await timed('transfer', () => transfer(context, {
    payer, payee: payeeFsp, transferId, amount: transferAmount.amount, currency: transferAmount.currency, ilpPacket, condition, version,
  }));
  if (failedOutcome(transferred)) return failedIn('transfer', transferred);
  context.counters.conversionsCompleted += 1;
  return {
    body: { transferId, commitRequestId, transferState: transferred.body.transferState, sourceAmount: conversionTerms.sourceAmount, targetAmount: conversionTerms.targetAmount },
    phasesMs,
  };
}

/**
 * Routes k6's calls: POST /payments, POST /requestsToPay (request-to-pay.js), POST
 * /bulkPayments (a bulk of payments, bulk.js), and each phase alone: GET
 * /parties/{type}/{id}?payer=&payee=, POST /quotes, POST /transfers.
 */
export async function handleBridge(context, request, response, text) {
  const started = Date.now();
  const url = new URL(request.url, 'http://bridge');
  const parts = url.pathname.split('/').filter(Boolean);
  try {
    if (request.method === 'GET' && parts[0] === 'parties') {
      const params = { payer: url.searchParams.get('payer'), payee: url.searchParams.get('payee'), type: parts[1], id: parts[2] };
      return finish(response, await discovery(context, params), started);
    }
    if (request.method === 'POST' && parts[0] === 'payments') return finish(response, await payment(context, JSON.parse(text)), started);
    if (request.method === 'POST' && parts[0] === 'requestsToPay') return finish(response, await requestToPay(context, JSON.parse(text)), started);
    if (request.method === 'POST' && parts[0] === 'bulkPayments') return finish(response, await bulkPayment(context, JSON.parse(text)), started);
    if (request.method === 'POST' && parts[0] === 'quotes') return finish(response, await quote(context, JSON.parse(text)), started);
    if (request.method === 'POST' && parts[0] === 'transfers') return finish(response, await transfer(context, JSON.parse(text)), started);
    if (request.method === 'GET' && parts[0] === 'health') return reply(response, 200, { status: 'OK', waiting: context.correlator.size });
    return reply(response, 404, { error: 'no such bridge route' });
  } catch (error) {
    return reply(response, 503, { error: error.message });
  }
}
