// The demo's merchant-initiated payment (request to pay, quoting/README.md): the payee's DFSP
// (the merchant's) finds the payer's customer, asks the payer's DFSP to pay with POST
// /transactionRequests, the payer's DFSP answers RECEIVED and has its customer approve with a
// one-time password (GET /authorizations to the merchant's DFSP, whose device the customer
// types it on; PUT /authorizations ENTERED back), then quotes naming the transaction request
// and pays with an ordinary transfer. Every step is printed as the plain payments' are, then
// the positions of both DFSPs before and after.
import { randomUUID } from 'node:crypto';
import { call, callbackTo, CALLBACK_WAIT_MS, describeOutcome, discover, requestQuote, transfer } from './demo-dfsp-calls.js';
import { dfspHeaders } from './fspiop-headers.js';
import { positionChanges, positionsOf } from './demo-positions.js';

/** A payment a merchant (a business, the payee) starts. */
export const PAYEE_INITIATED = Object.freeze({ scenario: 'PAYMENT', initiator: 'PAYEE', initiatorType: 'BUSINESS' });

/** The one-time password the payer's customer reads on its phone and types on the merchant's device. */
const OTP = '123456';

/** The first request `dfsp` received with `method` on `path` (exactly, or with a query). */
const requestTo = (dfsp, method, path) => dfsp.waitFor(
  (seen) => seen.method === method && (seen.path === path || seen.path.startsWith(`${path}?`)), CALLBACK_WAIT_MS,
);

/** Steps 2 and 3: POST /transactionRequests from the merchant's DFSP, RECEIVED from the payer's. */
async function askToPay(merchant, payer, { transactionRequestId, payerMsisdn, merchantMsisdn, amount, currency, log }) {
  const sinceMs = Date.now();
  await call(merchant, `${merchant.urls.quotes}/transactionRequests`, 'POST', dfspHeaders('transactionRequests', merchant.name, payer.name), {
    transactionRequestId,
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: merchantMsisdn, fspId: merchant.name } },
    payer: { partyIdType: 'MSISDN', partyIdentifier: payerMsisdn, fspId: payer.name },
    amount: { amount, currency }, transactionType: PAYEE_INITIATED, authenticationType: 'OTP',
    expiration: new Date(Date.now() + 60000).toISOString(),
  });
  const received = await payer.waitFor((seen) => seen.method === 'POST' && seen.path === '/transactionRequests' && seen.body?.transactionRequestId === transactionRequestId, CALLBACK_WAIT_MS);
  log(`  2. transaction request ${transactionRequestId.slice(0, 8)}…: POST /transactionRequests ${amount} ${currency}, OTP: ${payer.name} received it from ${received.headers['fspiop-source']}`);
  const path = `/transactionRequests/${transactionRequestId}`;
  await call(payer, `${payer.urls.quotes}${path}`, 'PUT', dfspHeaders('transactionRequests', payer.name, merchant.name, { accept: false }), { transactionRequestState: 'RECEIVED' });
  const answer = await callbackTo(merchant, 'PUT', path, sinceMs);
  log(`  3. ${payer.name} answers PUT /transactionRequests/${transactionRequestId.slice(0, 8)}…: ${merchant.name} told ${answer.body.transactionRequestState}, from ${answer.headers['fspiop-source']}`);
  return answer.body.transactionRequestState;
}

/** Steps 4 and 5: GET /authorizations from the payer's DFSP, the OTP ENTERED on the merchant's device. */
async function authorize(merchant, payer, { transactionRequestId, amount, currency, log }) {
  const sinceMs = Date.now();
  const path = `/authorizations/${transactionRequestId}`;
  const query = new URLSearchParams({ authenticationType: 'OTP', retriesLeft: '2', amount, currency });
  await call(payer, `${payer.urls.quotes}${path}?${query}`, 'GET', dfspHeaders('authorizations', payer.name, merchant.name));
  const asked = await requestTo(merchant, 'GET', path);
  log(`  4. authorization: GET /authorizations/${transactionRequestId.slice(0, 8)}…?${query}: ${merchant.name} asked, from ${asked.headers['fspiop-source']}`);
  await call(merchant, `${merchant.urls.quotes}${path}`, 'PUT', dfspHeaders('authorizations', merchant.name, payer.name, { accept: false }), {
    authenticationInfo: { authentication: 'OTP', authenticationValue: OTP }, responseType: 'ENTERED',
  });
  const answer = await callbackTo(payer, 'PUT', path, sinceMs);
  const entered = answer.body.authenticationInfo?.authenticationValue;
  log(`  5. the customer types the OTP on the merchant's device: ${payer.name} told ${answer.body.responseType} ${entered}, from ${answer.headers['fspiop-source']}${entered === OTP ? ', the OTP it sent' : ''}`);
  if (entered !== OTP) throw new Error(`the authorization came back with ${JSON.stringify(answer.body)}`);
  return answer.body.responseType;
}

/**
 * The merchant's DFSP (`merchantName`, whose customer is `merchantMsisdn`) asks `amount`
 * `currency` of the customer `payerMsisdn`; every step printed with `log`. `simulators`: name →
 * test DFSP simulator. Resolves to the states each step ended in and the positions of both
 * DFSPs before and after (`positions`: rows of participant, currency, before, after, change).
 */
export async function payRequestToPay({ request, simulators, merchantName, merchantMsisdn, payerMsisdn, amount, currency, log = console.log }) {
  const merchant = simulators.get(merchantName);
  log(`\n${merchantName} asks MSISDN ${payerMsisdn} to pay ${amount} ${currency} (a merchant-initiated payment: request to pay with an OTP)`);
  const found = await discover(merchant, payerMsisdn);
  if (found.error) throw new Error(`discovery: ${found.error.errorCode} ${found.error.errorDescription}`);
  const payer = simulators.get(found.party.partyIdInfo.fspId);
  log(`  1. discovery: ${payerMsisdn} is ${found.party.name} at ${payer.name}`);
  const names = [payer.name, merchant.name];
  const before = await positionsOf(request, names);
  const transactionRequestId = randomUUID();
  const steps = { transactionRequestId, payerFsp: payer.name, merchantFsp: merchant.name };
  steps.transactionRequestState = await askToPay(merchant, payer, { transactionRequestId, payerMsisdn, merchantMsisdn, amount, currency, log });
  steps.authorization = await authorize(merchant, payer, { transactionRequestId, amount, currency, log });
  const quoted = await requestQuote(payer, {
    payeeFsp: merchant.name, payeeMsisdn: merchantMsisdn, payerMsisdn, amount, currency, transactionRequestId, transactionType: PAYEE_INITIATED,
  });
  log(`  6. quote ${quoted.quoteId.slice(0, 8)}… naming the transaction request: ${quoted.transferAmount.amount} ${currency}, condition ${quoted.condition.slice(0, 10)}… from ${merchant.name}'s secret`);
  const result = await transfer(payer, merchant, quoted, { transferId: quoted.transactionId });
  log(`  7. transfer ${result.transferId.slice(0, 8)}… (the quote's transactionId): payer told ${describeOutcome(result)}`);
  const positions = positionChanges(before, await positionsOf(request, names));
  return { ...steps, quoteId: quoted.quoteId, transferId: result.transferId, transferState: result.outcome.body.transferState ?? 'ABORTED', positions };
}
