// Request to pay (merchant-initiated payments) for the load test, in FSPIOP v1.1
// (quoting/README.md, "transaction requests and authorizations"). Both sides are here:
//
// - The merchant, the payee's DFSP (k6 calls its bridge: POST /requestsToPay): it finds the
//   customer's DFSP (discovery, in mode full), asks it to pay (POST /transactionRequests), waits
//   for its PUT /transactionRequests/{ID} (RECEIVED), and learns the outcome as FSPIOP lets a
//   payee learn it: the payer's DFSP quotes naming the transaction request (POST /quotes with
//   `transactionRequestId`, which tells the merchant the transactionId, the transfer's id),
//   the merchant answers that transfer's prepare with `transferState: RESERVED`, and the
//   switch tells it the end with PATCH /transfers/{ID} (COMMITTED), or PUT …/error. Asked for
//   an authorization (GET /authorizations/{ID}), it answers with the OTP its customer enters.
// - The payer's DFSP, the customer's: told of a transaction request, it answers RECEIVED,
//   quotes naming it, asks the merchant for the customer's OTP when the request asks for one
//   (GET /authorizations/{transactionRequestId} with the quoted amount; the spec's order: the
//   customer approves what the quote says it will pay), checks it, and pays with an ordinary
//   transfer (bridge.js `transfer`: resent while its fate is unknown, its state asked for when
//   no callback came).
//
// The OTP is derived from the payer DFSP's secret and the transaction request's id (otpFor),
// standing in for the one a wallet sends its customer by SMS: the simulated customer at the
// merchant's device knows it, so neither side keeps it.
import { createHmac, randomBytes } from 'node:crypto';
import { answerAs } from './fspiop.js';
import { ownedId } from './correlator.js';
import { roundTrip } from './round-trip.js';
import { secretOf } from './payee.js';
import { fulfilmentFor } from './payee-ilp.js';
import { EXPIRY_CALLBACK_GRACE_MS, discovery, phaseTimer, transfer } from './bridge.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';

// How many times a payer's DFSP lets its customer enter the OTP: the first ask says this many
// retries are left, each retry one fewer (the spec's `retriesLeft`).
export const OTP_RETRIES = 2;
const OTP_DIGITS = 6;
const TRANSACTION_TYPE = Object.freeze({ scenario: 'PAYMENT', initiator: 'PAYEE', initiatorType: 'BUSINESS' });
// The merchant's own party: every simulated merchant names itself with this MSISDN.
const MERCHANT_MSISDN = '10000000001';

/** The one-time password the payer's DFSP `secret` gives its customer for transaction request `id`: six digits. */
export function otpFor(secret, transactionRequestId) {
  const digest = createHmac('sha256', secret).update(`otp:${transactionRequestId}`).digest();
  return String(digest.readUInt32BE(0) % 10 ** OTP_DIGITS).padStart(OTP_DIGITS, '0');
}

/** The merchant's TransactionRequestsPostRequest: `merchant` asks the holder of `msisdn` at `payerFsp` to pay `amount`. */
export function transactionRequestBody({ transactionRequestId, merchant, payerFsp, msisdn, amount, currency, otp, expiration }) {
  return {
    transactionRequestId,
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: MERCHANT_MSISDN, fspId: merchant }, name: `Merchant ${merchant}` },
    payer: { partyIdType: 'MSISDN', partyIdentifier: msisdn, fspId: payerFsp },
    amount: { amount, currency },
    transactionType: TRANSACTION_TYPE,
    ...(otp ? { authenticationType: 'OTP' } : {}),
    expiration,
  };
}

/**
 * The payer DFSP's QuotesPostRequest for a transaction request: the amount the merchant asked
 * is what it receives (RECEIVE), and the quote names the request so that the switch links them.
 */
export function requestQuoteBody(request, { quoteId, transactionId, expiration }) {
  return {
    quoteId, transactionId, transactionRequestId: request.transactionRequestId,
    payee: request.payee, payer: { partyIdInfo: request.payer },
    amountType: 'RECEIVE', amount: request.amount, transactionType: request.transactionType, expiration,
  };
}

/** The query of GET /authorizations/{ID}: the customer approves `amount` (the quote's transfer amount) by OTP. */
export function authorizationQuery({ retriesLeft, amount }) {
  return { authenticationType: 'OTP', retriesLeft: String(retriesLeft), amount: amount.amount, currency: amount.currency };
}

/** The merchant's PUT /authorizations/{ID}: the OTP its customer entered. */
export function authorizationAnswer(otp) {
  return { authenticationInfo: { authentication: 'OTP', authenticationValue: otp }, responseType: 'ENTERED' };
}

/** Whether an authorization answer carries the expected OTP. */
export function otpEntered(answer, expected) {
  return answer?.responseType === 'ENTERED' && answer.authenticationInfo?.authentication === 'OTP' && answer.authenticationInfo.authenticationValue === expected;
}

const failedOutcome = (outcome) => Boolean(outcome.timeout || outcome.error);

// The transfers a merchant of this process awaits the end of (transactionId → transaction
// request id): their prepares are answered RESERVED, so that the switch tells the merchant how
// they ended. An entry lives from the payer's quote until the merchant's wait ends.
const merchantTransfers = new Map();

/** The merchant's wait for the end of its transaction request: the quote naming it, then that transfer's PATCH (or error). */
function awaitOutcome(context, merchant, transactionRequestId, waitMs) {
  const quoteKey = `requestQuotes:${merchant}:${transactionRequestId}`;
  const outcome = context.correlator.wait(quoteKey, waitMs).then((quoted) => {
    if (failedOutcome(quoted)) return quoted;
    const { transactionId } = quoted.body;
    merchantTransfers.set(transactionId, transactionRequestId);
    return context.correlator.wait(`transfers:${merchant}:${transactionId}`, waitMs)
      .then((ended) => ({ ...ended, transactionId }))
      .finally(() => merchantTransfers.delete(transactionId));
  }).catch((error) => ({ error: error.message }));
  return { outcome, abandon: (reason) => context.correlator.settle(quoteKey, { error: reason }) };
}

/**
 * One merchant-initiated payment, k6's single call per request-to-pay iteration: discovery of
 * the customer's `msisdn` (in mode full), the transaction request until the payer's DFSP
 * answers RECEIVED (`transaction_request`), and the payment until the switch tells the merchant
 * it committed (`payment`), each phase's time in `phasesMs`.
 */
export async function requestToPay(context, { merchant, payer, msisdn, amount, currency, otp = false }) {
  const { phasesMs, timed } = phaseTimer();
  const failedIn = (phase, outcome) => ({ ...outcome, phase, phasesMs });
  const found = await timed('discovery', () => discovery(context, { payer: merchant, payee: payer, type: 'MSISDN', id: msisdn }));
  if (failedOutcome(found)) return failedIn('discovery', found);
  const payerFsp = found.body?.party?.partyIdInfo?.fspId;
  const { config } = context;
  const transactionRequestId = ownedId(context.worker, config.runTag, randomBytes(12));
  const body = transactionRequestBody({
    transactionRequestId, merchant, payerFsp, msisdn, amount, currency, otp, expiration: new Date(Date.now() + config.expirationMs).toISOString(),
  });
  // Awaited from before the request goes out: the payer's quote may reach the merchant before its RECEIVED does.
  const waiting = awaitOutcome(context, merchant, transactionRequestId, 2 * config.callbackTimeoutMs + config.expirationMs + EXPIRY_CALLBACK_GRACE_MS);
  const received = await timed('transaction_request', () => roundTrip(context, `transactionRequests:${merchant}:${transactionRequestId}`, {
    url: `${config.quotingUrl}/transactionRequests`, method: 'POST', headers: dfspHeaders('transactionRequests', merchant, payerFsp), body: JSON.stringify(body),
  }));
  const state = received.body?.transactionRequestState;
  if (failedOutcome(received) || state !== 'RECEIVED') {
    waiting.abandon('transaction request not received');
    return failedIn('transaction_request', failedOutcome(received) ? received : { error: state ?? 'no state', body: received.body });
  }
  const paid = await timed('payment', () => waiting.outcome);
  if (failedOutcome(paid)) return failedIn('payment', paid);
  context.counters.requestsToPayCompleted += 1;
  if (otp) context.counters.requestsToPayWithOtpCompleted += 1;
  return { body: { transactionRequestId, transferId: paid.transactionId, transferState: paid.body.transferState }, phasesMs };
}

/** The payer DFSP's quote for `request`: resolves as roundTrip does, the answer's body with the quote's ids. */
async function quoteRequest(context, payer, request) {
  const { config } = context;
  const body = requestQuoteBody(request, {
    quoteId: ownedId(context.worker, config.runTag, randomBytes(12)),
    transactionId: ownedId(context.worker, config.runTag, randomBytes(12)),
    expiration: new Date(Date.now() + config.expirationMs).toISOString(),
  });
  const outcome = await roundTrip(context, `quotes:${payer}:${body.quoteId}`, {
    url: `${config.quotingUrl}/quotes`, method: 'POST', headers: dfspHeaders('quotes', payer, request.payee.partyIdInfo.fspId), body: JSON.stringify(body),
  });
  if (outcome.body && !outcome.error) outcome.body = { ...outcome.body, quoteId: body.quoteId, transactionId: body.transactionId };
  return outcome;
}

/**
 * The payer DFSP asks the merchant for its customer's OTP (GET /authorizations/{ID}) and
 * checks it; a wrong one is asked again with one retry fewer, until none is left. Resolves to
 * `{ approved }` or the failed outcome.
 */
async function authorize(context, payer, merchant, request, amount) {
  const id = request.transactionRequestId;
  const expected = otpFor(secretOf(context.config, payer), id);
  for (let retriesLeft = OTP_RETRIES; retriesLeft >= 0; retriesLeft -= 1) {
    const query = new URLSearchParams(authorizationQuery({ retriesLeft, amount }));
    const answer = await roundTrip(context, `authorizations:${payer}:${id}`, {
      url: `${context.config.quotingUrl}/authorizations/${id}?${query}`, method: 'GET', headers: dfspHeaders('authorizations', payer, merchant), body: undefined,
    });
    if (failedOutcome(answer)) return answer;
    if (otpEntered(answer.body, expected)) return { approved: true };
    if (answer.body?.responseType === 'REJECTED') return { error: 'customer rejected', body: answer.body };
  }
  return { error: 'OTP retries exhausted' };
}

/**
 * The payer's DFSP pays a transaction request it was sent: RECEIVED, the quote naming it, the
 * customer's OTP when asked for, and the transfer. A refusal on the way leaves the merchant
 * waiting until its wait ends: the switch keeps the transaction request's RECEIVED answer,
 * and the simulated customer always approves.
 */
async function payRequest(context, payer, request) {
  const merchant = request.payee.partyIdInfo.fspId;
  const id = request.transactionRequestId;
  await answerAs(context.config, payer, `${context.config.quotingUrl}/transactionRequests/${id}`, 'PUT', dfspHeaders('transactionRequests', payer, merchant, { accept: false }),
    JSON.stringify({ transactionRequestState: 'RECEIVED' }));
  const quoted = await quoteRequest(context, payer, request);
  if (failedOutcome(quoted)) return quoted;
  const { transactionId, transferAmount, ilpPacket, condition } = quoted.body;
  if (request.authenticationType === 'OTP') {
    const authorized = await authorize(context, payer, merchant, request, transferAmount);
    if (failedOutcome(authorized)) return authorized;
  }
  return transfer(context, { payer, payee: merchant, transferId: transactionId, amount: transferAmount.amount, currency: transferAmount.currency, ilpPacket, condition });
}

/** The merchant's answer to a transfer it awaits: its fulfilment with RESERVED, so that the switch tells it the end (PATCH). */
function answerReserved(config, merchant, payer, prepare) {
  const body = { fulfilment: fulfilmentFor(secretOf(config, merchant), prepare.ilpPacket), completedTimestamp: new Date().toISOString(), transferState: 'RESERVED' };
  return answerAs(config, merchant, `${config.transfersUrl}/transfers/${prepare.transferId}`, 'PUT', dfspHeaders('transfers', merchant, payer, { accept: false }), JSON.stringify(body));
}

/**
 * Handles what the switch sends DFSP `name` (already answered 202) that request to pay adds:
 * as payer, POST /transactionRequests; as merchant, GET /authorizations/{ID} and the prepares
 * of the transfers it awaits. A POST /quotes naming a transaction request of a waiting merchant
 * is noted (the merchant now knows its transfer) and left to the payee's answer (payee.js).
 * Returns undefined for anything else.
 */
export function answerAsRequestToPay(context, name, method, parts, text, requestHeaders) {
  const { config } = context;
  const sender = requestHeaders['fspiop-source'];
  if (method === 'POST' && parts[0] === 'transactionRequests') return payRequest(context, name, JSON.parse(text)).catch(() => undefined);
  if (method === 'GET' && parts[0] === 'authorizations') {
    const otp = otpFor(secretOf(config, sender), parts[1]);
    return answerAs(config, name, `${config.quotingUrl}/authorizations/${parts[1]}`, 'PUT', dfspHeaders('authorizations', name, sender, { accept: false }), JSON.stringify(authorizationAnswer(otp)));
  }
  if (method === 'POST' && parts[0] === 'quotes') {
    const quote = JSON.parse(text);
    if (quote.transactionRequestId) context.correlator.settle(`requestQuotes:${name}:${quote.transactionRequestId}`, { body: quote });
    return undefined;
  }
  if (method === 'POST' && parts[0] === 'transfers' && merchantTransfers.size > 0) {
    const prepare = JSON.parse(text);
    if (merchantTransfers.has(prepare.transferId)) return answerReserved(config, name, sender, prepare);
  }
  return undefined;
}
