// The load harness's bulks, their pure parts: the simulated payee's answers to a bulk quote
// (each item's terms, ILP packet and condition as a single quote's) and to a bulk transfer
// (each item's fulfilment, which matches the condition it quoted), and a bulk run's settings
// in items.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { bulkQuoteAnswer, bulkTransferAnswer } from '../../perf/simulators/bulk.js';
import { quoteAnswer } from '../../perf/simulators/payee.js';
import { BULK_NOTIFICATION_RATIO, PROFILES, bulkRunSettings } from '../../perf/run.js';

const config = { secretPrefix: 's-', expirationMs: 60_000 };
const individualQuote = (index, amount = '1') => ({
  quoteId: `q-${index}`, transactionId: `t-${index}`, amountType: 'SEND', amount: { amount, currency: 'USD' },
  payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: String(2000000000 + index), fspId: 'payee' } },
  transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
});
const conditionOf = (fulfilment) => createHash('sha256').update(Buffer.from(fulfilment, 'base64url')).digest('base64url');

test('the payee quotes every item of a bulk as it quotes a single payment, the expiry the bulk\'s', () => {
  const request = { bulkQuoteId: 'b', individualQuotes: [individualQuote(1), individualQuote(2, '2.5')] };
  const answer = bulkQuoteAnswer(config, 'payee', request);
  assert.ok(Date.parse(answer.expiration) > Date.now());
  assert.deepEqual(answer.individualQuoteResults.map((result) => Object.keys(result).sort()), Array(2).fill(['condition', 'ilpPacket', 'payeeReceiveAmount', 'quoteId', 'transferAmount']));
  for (const [index, result] of answer.individualQuoteResults.entries()) {
    const single = quoteAnswer(config, 'payee', request.individualQuotes[index]);
    assert.equal(result.quoteId, request.individualQuotes[index].quoteId);
    assert.deepEqual(result.transferAmount, request.individualQuotes[index].amount);
    assert.equal(result.condition, single.condition, 'the condition depends on the transaction and amount alone');
  }
  assert.notEqual(answer.individualQuoteResults[0].condition, answer.individualQuoteResults[1].condition);
});

test('the payee fulfils every item of a bulk transfer with the fulfilment of the condition it quoted, and only with its own secret', () => {
  const quoted = bulkQuoteAnswer(config, 'payee', { bulkQuoteId: 'b', individualQuotes: [individualQuote(1), individualQuote(2)] });
  const request = {
    bulkTransferId: 'bt', payerFsp: 'payer', payeeFsp: 'payee',
    individualTransfers: quoted.individualQuoteResults.map((result, index) => ({ transferId: `t-${index + 1}`, ilpPacket: result.ilpPacket, condition: result.condition })),
  };
  const answer = bulkTransferAnswer(config, 'payee', request);
  assert.equal(answer.bulkTransferState, 'COMPLETED');
  assert.deepEqual(answer.individualTransferResults.map((result) => result.transferId), ['t-1', 't-2']);
  for (const [index, result] of answer.individualTransferResults.entries()) assert.equal(conditionOf(result.fulfilment), request.individualTransfers[index].condition);
  const stranger = bulkTransferAnswer(config, 'other', request);
  assert.notEqual(conditionOf(stranger.individualTransferResults[0].fulfilment), request.individualTransfers[0].condition);
});

test('a bulk run counts its transfers and rate in items; other runs are left as they are', () => {
  const bulk = bulkRunSettings({ ...PROFILES.bulk, bulks: 30, bulkSize: 50, bulkRate: 0.5 });
  assert.equal(bulk.transfers, 1500);
  assert.equal(bulk.tps, 25);
  assert.equal(bulk.k6Script, 'perf/k6/bulk.js');
  assert.deepEqual(bulkRunSettings(PROFILES.load), PROFILES.load);
  assert.deepEqual(BULK_NOTIFICATION_RATIO, { transfer: 2, 'quote-transfer': 4, full: 4 });
});
