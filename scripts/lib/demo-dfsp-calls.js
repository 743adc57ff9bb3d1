// What the demo's DFSPs send, as a DFSP sends it: each request signed with the sender's key
// (over the empty payload when it has no body) and, to an HTTPS edge, over its client
// certificate; each answer awaited as the callback the switch PUTs to the sender. `sender` is
// a test DFSP simulator (test/support/test-dfsp.js) with its `urls` of the switch's edges.
import { randomUUID } from 'node:crypto';
import { dfspHeaders, fetchSigned } from './fspiop-headers.js';

/** How long a DFSP waits for any one callback. */
export const CALLBACK_WAIT_MS = 20000;

/** Sends a DFSP's request; anything but 200 or 202 from the edge throws with its answer. */
export async function call(sender, url, method, headers, body) {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const response = await fetchSigned(url, { method, headers, body: text, privateKey: sender.privateKey, tls: sender.tlsFor(url) });
  if (![200, 202].includes(response.status)) throw new Error(`${method} ${url} answered ${response.status}: ${await response.text()}`);
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
 * PUT. Resolves to `{ party }` or `{ error }`.
 */
export async function discover(payer, msisdn, { version = '1.1', sinceMs = Date.now() } = {}) {
  await call(payer, `${payer.urls.parties}/parties/MSISDN/${msisdn}`, 'GET', dfspHeaders('parties', payer.name, undefined, { version }));
  const answer = await callbackTo(payer, 'PUT', `/parties/MSISDN/${msisdn}`, sinceMs);
  return answer.body.errorInformation ? { error: answer.body.errorInformation } : { party: answer.body.party };
}

/** A payment the payer's customer starts: a transfer between consumers. */
export const PAYER_INITIATED = Object.freeze({ scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' });

/**
 * POST /quotes from the payer to the payee's DFSP for `amount` `currency` sent; resolves to the
 * quote with its ids. A quote for a merchant's transaction request names it
 * (`transactionRequestId`) and its `transactionType`.
 */
export async function requestQuote(payer, { payeeFsp, payeeMsisdn, payerMsisdn, amount, currency, transactionRequestId, transactionType = PAYER_INITIATED }) {
  const quoteId = randomUUID();
  const transactionId = randomUUID();
  await call(payer, `${payer.urls.quotes}/quotes`, 'POST', dfspHeaders('quotes', payer.name, payeeFsp), {
    quoteId, transactionId, ...(transactionRequestId ? { transactionRequestId } : {}), amountType: 'SEND', amount: { amount, currency },
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: payeeMsisdn, fspId: payeeFsp } },
    payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: payerMsisdn, fspId: payer.name } },
    transactionType,
  });
  const answer = await callbackTo(payer, 'PUT', `/quotes/${quoteId}`);
  return { quoteId, transactionId, ...answer.body };
}

/**
 * POST /transfers of a quoted payment from the payer; the payee's simulator answers it by
 * `payeeBehaviour` (test-dfsp.js). Resolves to the transferId, the payer's PUT and, when the
 * payee fulfilled with RESERVED, the hub's PATCH to the payee.
 */
export async function transfer(payer, payee, quoted, { transferId = randomUUID(), payeeBehaviour = 'fulfil' } = {}) {
  payee.setBehaviour(transferId, payeeBehaviour);
  const sinceMs = Date.now();
  await call(payer, `${payer.urls.transfers}/transfers`, 'POST', dfspHeaders('transfers', payer.name, payee.name), {
    transferId, payerFsp: payer.name, payeeFsp: payee.name, amount: quoted.transferAmount,
    ilpPacket: quoted.ilpPacket, condition: quoted.condition, expiration: new Date(Date.now() + 30000).toISOString(),
  });
  const outcome = await callbackTo(payer, 'PUT', `/transfers/${transferId}`, sinceMs);
  const patch = payeeBehaviour === 'reserve' ? await payee.waitFor((seen) => seen.method === 'PATCH' && seen.path === `/transfers/${transferId}`, CALLBACK_WAIT_MS) : null;
  return { transferId, outcome, patch };
}

/** What the payer was told of a transfer, and the payee's PATCH if any, in one line. */
export function describeOutcome({ outcome, patch }) {
  const told = outcome.body.errorInformation
    ? `ABORTED ${outcome.body.errorInformation.errorCode} "${outcome.body.errorInformation.errorDescription}"`
    : `${outcome.body.transferState} (fulfilment ${outcome.body.fulfilment?.slice(0, 10)}…)`;
  return `${told}, from ${outcome.headers['fspiop-source']}${patch ? `; payee PATCHed ${patch.body.transferState}` : ''}`;
}
