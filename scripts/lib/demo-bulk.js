// The demo's bulk payment (quoting/README.md "Bulk quotes", handlers/README.md "Bulk
// transfers"): a payer DFSP pays several customers of one payee DFSP at once, as a payroll
// would. It asks for every quote in one POST /bulkQuotes, which the payee answers item by item
// with an ILP packet and condition from its secret; then sends one POST /bulkTransfers with a
// transfer per quote, each reserved as a single transfer would be. The payee answers with a
// fulfilment per transfer, one of them wrong (as a payee's bug would make it): that transfer
// alone aborts, the others commit, and the payer hears one aggregated answer from the hub.
// Every step and every item's result is printed, then both DFSPs' positions before and after.
import { randomUUID } from 'node:crypto';
import { call, callbackTo, CALLBACK_WAIT_MS } from './demo-dfsp-calls.js';
import { dfspHeaders } from './fspiop-headers.js';
import { positionChanges, positionsOf, units } from './demo-positions.js';
import { fulfilmentFor, quoteIlp } from '../../perf/simulators/payee-ilp.js';
import { formatAmount } from '../../ledger/domain/money.js';

/** The first request `dfsp` received with `method` on `path` whose body names `id` as `field`. */
const requestTo = (dfsp, method, path, field, id) => dfsp.waitFor(
  (seen) => seen.method === method && seen.path === path && seen.body?.[field] === id, CALLBACK_WAIT_MS,
);

/** Step 1: one POST /bulkQuotes from the payer, answered by the payee with a quote per item. */
async function quoteBulk(payer, payee, { payerMsisdn, items, currency, log }) {
  const sinceMs = Date.now();
  const bulkQuoteId = randomUUID();
  const expiration = new Date(Date.now() + 60000).toISOString();
  const individualQuotes = items.map(({ msisdn, amount }) => ({
    quoteId: randomUUID(), transactionId: randomUUID(), amountType: 'SEND', amount: { amount, currency },
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: msisdn, fspId: payee.name } },
    transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'BUSINESS' }, note: 'salary',
  }));
  await call(payer, `${payer.urls.quotes}/bulkQuotes`, 'POST', dfspHeaders('bulkQuotes', payer.name, payee.name), {
    bulkQuoteId, payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: payerMsisdn, fspId: payer.name } }, expiration, individualQuotes,
  });
  await requestTo(payee, 'POST', '/bulkQuotes', 'bulkQuoteId', bulkQuoteId);
  // The payee quotes each item as it would a single quote: the transfer will carry the quote's transactionId.
  const individualQuoteResults = individualQuotes.map(({ quoteId, transactionId, amount }) => ({
    quoteId, transferAmount: amount,
    ...quoteIlp({ secret: payee.secret, transferId: transactionId, amount: amount.amount, currency, payeeAddress: `g.${payee.name}`, expiration }),
  }));
  await call(payee, `${payee.urls.quotes}/bulkQuotes/${bulkQuoteId}`, 'PUT', dfspHeaders('bulkQuotes', payee.name, payer.name, { accept: false }), { expiration, individualQuoteResults });
  const answer = await callbackTo(payer, 'PUT', `/bulkQuotes/${bulkQuoteId}`, sinceMs);
  const quoted = answer.body.individualQuoteResults ?? [];
  const total = formatAmount(quoted.reduce((sum, result) => sum + units(result.transferAmount.amount), 0n));
  log(`  1. bulk quote ${bulkQuoteId.slice(0, 8)}…: POST /bulkQuotes of ${items.length} to ${payee.name}: ${quoted.length} quotes, ${total} ${currency} in all, from ${answer.headers['fspiop-source']}`);
  if (quoted.length !== items.length) throw new Error(`the bulk quote came back with ${JSON.stringify(answer.body)}`);
  return { bulkQuoteId, expiration, individualQuotes, results: new Map(quoted.map((result) => [result.quoteId, result])) };
}

/** Step 2: one POST /bulkTransfers, a transfer per quoted item; the payee receives the reserved ones. */
async function prepareBulk(payer, payee, { bulkQuoteId, individualQuotes, results, log }) {
  const bulkTransferId = randomUUID();
  const individualTransfers = individualQuotes.map(({ quoteId, transactionId }) => {
    const { transferAmount, ilpPacket, condition } = results.get(quoteId);
    return { transferId: transactionId, transferAmount, ilpPacket, condition };
  });
  await call(payer, `${payer.urls.transfers}/bulkTransfers`, 'POST', dfspHeaders('bulkTransfers', payer.name, payee.name), {
    bulkTransferId, bulkQuoteId, payerFsp: payer.name, payeeFsp: payee.name, individualTransfers,
    expiration: new Date(Date.now() + 30000).toISOString(),
  });
  const forwarded = await requestTo(payee, 'POST', '/bulkTransfers', 'bulkTransferId', bulkTransferId);
  log(`  2. bulk transfer ${bulkTransferId.slice(0, 8)}…: POST /bulkTransfers of ${individualTransfers.length}: each reserved as a single transfer; ${payee.name} received ${forwarded.body.individualTransfers.length}, from ${forwarded.headers['fspiop-source']}`);
  return { bulkTransferId, forwarded: forwarded.body.individualTransfers };
}

/** Steps 3 and 4: the payee fulfils every transfer it received, `wrongTransferId`'s wrongly; the payer's aggregated answer. */
async function fulfilBulk(payer, payee, { bulkTransferId, forwarded, wrongTransferId, log }) {
  const sinceMs = Date.now();
  const individualTransferResults = forwarded.map(({ transferId, ilpPacket }) => ({
    transferId, fulfilment: fulfilmentFor(transferId === wrongTransferId ? `${payee.secret}-not` : payee.secret, ilpPacket),
  }));
  await call(payee, `${payee.urls.transfers}/bulkTransfers/${bulkTransferId}`, 'PUT', dfspHeaders('bulkTransfers', payee.name, payer.name, { accept: false }), {
    bulkTransferState: 'COMPLETED', completedTimestamp: new Date().toISOString(), individualTransferResults,
  });
  const wrongIndex = forwarded.findIndex((item) => item.transferId === wrongTransferId);
  log(`  3. ${payee.name} answers PUT /bulkTransfers/${bulkTransferId.slice(0, 8)}…: ${individualTransferResults.length} fulfilments${wrongIndex >= 0 ? `, item ${wrongIndex + 1}'s wrong (not from its secret)` : ''}`);
  const answer = await callbackTo(payer, 'PUT', `/bulkTransfers/${bulkTransferId}`, sinceMs);
  log(`  4. ${payer.name} told ${answer.body.bulkTransferState ?? `${answer.body.errorInformation?.errorCode} "${answer.body.errorInformation?.errorDescription}"`}, from ${answer.headers['fspiop-source']}, each item's result:`);
  return answer.body;
}

/** Each item's result as the payer was told it, a line per item in the bulk's order. */
function itemResults(answer, { individualQuotes, items, currency, log }) {
  const told = new Map((answer.individualTransferResults ?? []).map((result) => [result.transferId, result]));
  return individualQuotes.map(({ transactionId }, index) => {
    const result = told.get(transactionId);
    const state = result?.fulfilment ? 'COMMITTED' : result?.errorInformation ? 'ABORTED' : 'no result';
    const why = result?.errorInformation ? ` ${result.errorInformation.errorCode} "${result.errorInformation.errorDescription}"` : '';
    log(`     item ${String(index + 1).padStart(2)} transfer ${transactionId.slice(0, 8)}… ${items[index].amount} ${currency} to ${items[index].msisdn}: ${state}${why}`);
    return { transferId: transactionId, amount: items[index].amount, state, errorCode: result?.errorInformation?.errorCode };
  });
}

/**
 * `payerName` pays each of `items` ([{ msisdn, amount }], customers of `payeeName`) in
 * `currency` with one bulk quote and one bulk transfer, the payee fulfilling the transfer of
 * item `wrongItem` (0-based) wrongly; every step and item printed with `log`. `simulators`:
 * name → test DFSP simulator. Resolves to the ids, the payer's aggregated answer, each item's
 * result and both DFSPs' positions before and after (rows of participant, currency, before,
 * after, change).
 */
export async function payBulk({ request, simulators, payerName, payerMsisdn, payeeName, items, currency, wrongItem, log = console.log }) {
  const payer = simulators.get(payerName);
  const payee = simulators.get(payeeName);
  log(`\n${payerName} pays ${items.length} customers of ${payeeName} at once (a bulk: one bulk quote, one bulk transfer; the payee gets item ${wrongItem + 1}'s fulfilment wrong)`);
  const names = [payerName, payeeName];
  const before = await positionsOf(request, names);
  const quoted = await quoteBulk(payer, payee, { payerMsisdn, items, currency, log });
  const prepared = await prepareBulk(payer, payee, { ...quoted, log });
  const wrongTransferId = quoted.individualQuotes[wrongItem]?.transactionId;
  const answer = await fulfilBulk(payer, payee, { ...prepared, wrongTransferId, log });
  const results = itemResults(answer, { ...quoted, items, currency, log });
  const positions = positionChanges(before, await positionsOf(request, names));
  return { bulkQuoteId: quoted.bulkQuoteId, bulkTransferId: prepared.bulkTransferId, bulkTransferState: answer.bulkTransferState, results, positions };
}

/** What the committed items add up to, as an exact decimal: what the payer's position must have risen by. */
export const committedTotal = (results) => formatAmount(results.filter((result) => result.state === 'COMMITTED').reduce((sum, result) => sum + units(result.amount), 0n));
