// What the demo's DFSPs send, as a DFSP sends it: each request signed with the sender's key
// (over the empty payload when it has no body) and, to an HTTPS edge, over its client
// certificate; each answer awaited as the callback the switch PUTs to the sender. `sender` is
// a test DFSP simulator (test/support/test-dfsp.js) with its `urls` of the switch's edges.
// Each call is built in FSPIOP terms and sent in the sender's API type: a DFSP registered as
// ISO 20022 sends the ISO 20022 message of the five resources ISO 20022 carries (wireMessage).
import { randomUUID } from 'node:crypto';
import { ulid } from 'ulidx';
import { dfspHeaders, fetchSigned } from './fspiop-headers.js';
import { wireMessage } from '../../test/support/test-dfsp.js';
import { API_TYPE } from '../../platform/iso20022/media-types.js';

/** How long a DFSP waits for any one callback. */
export const CALLBACK_WAIT_MS = 20000;

/**
 * A new quoteId, transactionId or transferId for a message `sender` sends in `version`: a ULID
 * when the sender speaks ISO 20022 (whose identifiers are ULIDs) or the message is FSPIOP 2.x
 * (whose CorrelationId takes ULIDs, so that an ISO 20022 receiver can be given it); a UUID in
 * FSPIOP 1.x, whose CorrelationId is a UUID only.
 */
export function newCorrelationId(sender, version = '1.1') {
  return sender.apiType === API_TYPE.iso20022 || Number(version.split('.')[0]) >= 2 ? ulid() : randomUUID();
}

/**
 * Sends a DFSP's request, an FSPIOP `body` written in the sender's API type (`context`: the
 * ISO 20022 quote messages an ISO 20022 PUT /quotes or POST /transfers is built from); anything
 * but 200 or 202 from the edge throws with its answer. Resolves to what went on the wire
 * (`{ headers, text }`).
 */
export async function call(sender, url, method, headers, body, context) {
  const wire = await wireMessage(sender, url, method, headers, body, context);
  const response = await fetchSigned(url, { method, headers: wire.headers, body: wire.text, privateKey: sender.privateKey, tls: sender.tlsFor(url) });
  if (![200, 202].includes(response.status)) throw new Error(`${method} ${url} answered ${response.status}: ${await response.text()}`);
  return wire;
}

/** The first callback `dfsp` received since `sinceMs` with `method` on a path starting with `path`. */
export function callbackTo(dfsp, method, path, sinceMs = 0) {
  return dfsp.waitFor((seen) => seen.method === method && seen.path.startsWith(path) && seen.at >= sinceMs, CALLBACK_WAIT_MS);
}

/**
 * A payee registers its customer's MSISDN with the switch's oracle, in `currency` (its
 * `supportedCurrencies` also go into the party it answers discovery with).
 */
export async function registerParty(payee, { msisdn, customer, currency, supportedCurrencies }) {
  payee.parties.set(`MSISDN/${msisdn}`, { name: customer, ...(supportedCurrencies ? { supportedCurrencies } : {}) });
  const sinceMs = Date.now();
  await call(payee, `${payee.urls.parties}/participants/MSISDN/${msisdn}`, 'POST', dfspHeaders('participants', payee.name), { fspId: payee.name, currency });
  await callbackTo(payee, 'PUT', `/participants/MSISDN/${msisdn}`, sinceMs);
}

/**
 * Discovery: GET /parties from the payer (in `version`); the answer (or 3204) comes back as a
 * PUT. Resolves to `{ party }` or `{ error }`, with what the payer sent (`sent`) and the answer
 * as it arrived (`answer`).
 */
export async function discover(payer, msisdn, { version = '1.1', sinceMs = Date.now() } = {}) {
  const sent = await call(payer, `${payer.urls.parties}/parties/MSISDN/${msisdn}`, 'GET', dfspHeaders('parties', payer.name, undefined, { version }));
  const answer = await callbackTo(payer, 'PUT', `/parties/MSISDN/${msisdn}`, sinceMs);
  if (!answer.body) throw new Error(`${payer.name} received PUT /parties/MSISDN/${msisdn} without a body`);
  return { ...(answer.body.errorInformation ? { error: answer.body.errorInformation } : { party: answer.body.party }), sent, answer };
}

/** A payment the payer's customer starts: a transfer between consumers. */
export const PAYER_INITIATED = Object.freeze({ scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' });

/**
 * POST /quotes from the payer to the payee's DFSP for `amount` `currency` sent, in `version`;
 * resolves to the quote with its ids, what the payer sent (`sent`: `{ headers, text }`) and the
 * answer as it arrived (`answer`: the recorded call, `isoBody` its ISO 20022 message when it
 * came in ISO 20022). A quote for a merchant's transaction request names it
 * (`transactionRequestId`) and its `transactionType`.
 */
export async function requestQuote(payer, {
  payeeFsp, payeeMsisdn, payerMsisdn, amount, currency, transactionRequestId, transactionType = PAYER_INITIATED, version = '1.1',
}) {
  const quoteId = newCorrelationId(payer, version);
  const transactionId = newCorrelationId(payer, version);
  const sent = await call(payer, `${payer.urls.quotes}/quotes`, 'POST', dfspHeaders('quotes', payer.name, payeeFsp, { version }), {
    quoteId, transactionId, ...(transactionRequestId ? { transactionRequestId } : {}), amountType: 'SEND', amount: { amount, currency },
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: payeeMsisdn, fspId: payeeFsp } },
    payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: payerMsisdn, fspId: payer.name } },
    transactionType,
  });
  const answer = await callbackTo(payer, 'PUT', `/quotes/${quoteId}`);
  return { quoteId, transactionId, ...answer.body, sent, answer };
}

/**
 * POST /transfers of a quoted payment from the payer, in `version`; the payee's simulator
 * answers it by `payeeBehaviour` (test-dfsp.js). An ISO 20022 payer builds its pacs.008 from
 * the pacs.082 it was quoted with. Resolves to the transferId, what the payer sent (`sent`),
 * the payer's PUT and, when the payee fulfilled with RESERVED, the hub's PATCH to the payee.
 */
export async function transfer(payer, payee, quoted, { version = '1.1', transferId = newCorrelationId(payer, version), payeeBehaviour = 'fulfil' } = {}) {
  payee.setBehaviour(transferId, payeeBehaviour);
  const sinceMs = Date.now();
  const context = quoted.answer?.isoBody ? { isoPostQuoteResponse: quoted.answer.isoBody } : undefined;
  const sent = await call(payer, `${payer.urls.transfers}/transfers`, 'POST', dfspHeaders('transfers', payer.name, payee.name, { version }), {
    transferId, payerFsp: payer.name, payeeFsp: payee.name, amount: quoted.transferAmount,
    ilpPacket: quoted.ilpPacket, condition: quoted.condition, expiration: new Date(Date.now() + 30000).toISOString(),
  }, context);
  const outcome = await callbackTo(payer, 'PUT', `/transfers/${transferId}`, sinceMs);
  const patch = payeeBehaviour === 'reserve' ? await payee.waitFor((seen) => seen.method === 'PATCH' && seen.path === `/transfers/${transferId}`, CALLBACK_WAIT_MS) : null;
  return { transferId, sent, outcome, patch };
}

/** What the payer was told of a transfer, and the payee's PATCH if any, in one line. */
export function describeOutcome({ outcome, patch }) {
  const told = outcome.body.errorInformation
    ? `ABORTED ${outcome.body.errorInformation.errorCode} "${outcome.body.errorInformation.errorDescription}"`
    : `${outcome.body.transferState} (fulfilment ${outcome.body.fulfilment?.slice(0, 10)}…)`;
  return `${told}, from ${outcome.headers['fspiop-source']}${patch ? `; payee PATCHed ${patch.body.transferState}` : ''}`;
}
