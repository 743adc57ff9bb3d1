// The conversion columns of the transfer table against a real MariaDB: a conversion (kind
// FX_TRANSFER) keeps its target amount and currency and the payment it is for, the payment
// keeps its conversion, both writers (the hot path's mysql2 transaction and knex) store the
// same row, both readers map it back alike, a plain payment maps as before, and the
// determiningTransferId column is indexed for the payment's prepare and the timeout claim.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createTestDatabase, testConfig } from '../support/environment.js';
import { createSqlPool, inTransaction, runStatements } from '../../platform/db.js';
import { TRANSFER_KIND, TRANSFER_STATE as S } from '../../ledger/domain/transfer-states.js';
import { selectTransfers, transferInsertStatements, transfersFromRows } from '../../ledger/repositories/statements/transfers.js';
import { claimExpiredTransfers, findTransfers, insertTransfers, lockLinkedTransfers } from '../../ledger/repositories/transfers.js';
import { deleteTransfers, onboardDfsp, onboardHub, openTransaction, paymentRow, units } from './fixtures.js';

const T0 = new Date('2030-06-01T09:00:00.000Z');
const FAR = new Date('2099-01-01T00:00:00.000Z');

let env;
let db;
let pool;
let payer;
let fxp;
let payee;

before(async () => {
  env = await createTestDatabase();
  db = env.db;
  pool = createSqlPool(testConfig().db, { database: env.name });
  const hub = await onboardHub(db, { now: T0 });
  payer = await onboardDfsp(db, { name: 'fxpayerfsp', hub, now: T0 });
  fxp = await onboardDfsp(db, { name: 'fxprovider', hub, now: T0 });
  payee = await onboardDfsp(db, { name: 'fxpayeefsp', hub, now: T0 });
});
after(async () => {
  await pool?.end();
  await env?.drop();
});

/** A conversion and the payment it is for, as the fx prepare and prepare decisions store them. */
function conversionPayment({ conversionStates = [S.receivedPrepare], paymentStates = [S.receivedPrepare], expiresAt = FAR } = {}) {
  const determiningTransferId = randomUUID();
  const conversion = paymentRow({
    payer, payee: fxp, amount: '100.5', expiresAt, kind: TRANSFER_KIND.fxTransfer, states: conversionStates,
    targetAmount: units('92.1234'), targetCurrency: 'EUR', determiningTransferId,
  });
  const payment = paymentRow({
    payer: { name: payer.name, positionAccountId: fxp.positionAccountId }, payee, amount: '92.1234', expiresAt, states: paymentStates,
    transferId: determiningTransferId, commitRequestId: conversion.transferId,
  });
  return { conversion, payment };
}

test('a conversion and its payment keep what links them, written alike by both writers and read alike by both readers', async (t) => {
  const knexWritten = conversionPayment();
  const hotWritten = conversionPayment();
  const plain = paymentRow({ payer, payee, amount: '3', expiresAt: FAR });
  const all = [knexWritten.conversion, knexWritten.payment, hotWritten.conversion, hotWritten.payment, plain];
  t.after(() => deleteTransfers(db, all.map((row) => row.transferId)));
  await db.transaction((trx) => runStatements(trx, transferInsertStatements([knexWritten.conversion, knexWritten.payment, plain], T0)));
  await inTransaction(pool, (tx) => tx.write(...transferInsertStatements([hotWritten.conversion, hotWritten.payment], T0)));

  const columns = ['kind', 'amount', 'target_amount', 'target_currency'];
  for (const written of [knexWritten, hotWritten]) {
    const stored = await db('transfer').where({ transfer_id: written.conversion.transferId }).first();
    assert.deepEqual(columns.map((column) => stored[column]), [TRANSFER_KIND.fxTransfer, '100.5000', '92.1234', 'EUR']);
    assert.equal(stored.determining_transfer_id, written.payment.transferId);
    assert.equal(stored.commit_request_id, null, 'a conversion names no conversion');
    const payment = await db('transfer').where({ transfer_id: written.payment.transferId }).first();
    assert.equal(payment.commit_request_id, written.conversion.transferId);
    assert.deepEqual([payment.target_amount, payment.target_currency, payment.determining_transfer_id], [null, null, null]);
  }

  const ids = all.map((row) => row.transferId);
  const [rows] = await inTransaction(pool, (tx) => tx.read(selectTransfers(ids)));
  const read = transfersFromRows(rows);
  assert.deepEqual(read, await findTransfers(db, ids), 'the hot path and knex map the same rows alike');
  for (const written of [knexWritten, hotWritten]) {
    const conversion = read.get(written.conversion.transferId);
    assert.equal(conversion.targetAmount, units('92.1234'), 'the target amount is exact, in scaled units');
    assert.equal(conversion.targetCurrency, 'EUR');
    assert.equal(conversion.determiningTransferId, written.payment.transferId);
    assert.equal('commitRequestId' in conversion, false);
    const payment = read.get(written.payment.transferId);
    assert.equal(payment.commitRequestId, written.conversion.transferId);
    assert.equal(payment.payerAccountId, fxp.positionAccountId, 'the payment debits the FXP\'s account');
    assert.deepEqual(['targetAmount', 'targetCurrency', 'determiningTransferId'].filter((key) => key in payment), []);
  }
  const plainRead = read.get(plain.transferId);
  assert.deepEqual(['targetAmount', 'targetCurrency', 'determiningTransferId', 'commitRequestId'].filter((key) => key in plainRead), [],
    'a plain payment maps as before');
});

test('a payment\'s conversion is found by an index on determining_transfer_id', async () => {
  const [indexes] = await db.raw('SHOW INDEX FROM `transfer` WHERE `Column_name` = ?', ['determining_transfer_id']);
  assert.equal(indexes.length, 1);
  assert.equal(indexes[0].Seq_in_index, 1, 'the column leads its index');
});

const NOW = new Date('2030-06-01T10:00:00.000Z');
const EXPIRED = new Date('2030-06-01T09:59:00.000Z');
const WAITING = [S.receivedPrepare, S.reserved, S.receivedFulfilDependent];
const idsOf = (transfers) => transfers.map((transfer) => transfer.transferId);

test('the timeout claim takes an expired conversion waiting for its payment, but not one whose payment holds a reservation', async (t) => {
  const unpaid = conversionPayment({ conversionStates: WAITING, expiresAt: EXPIRED });
  const prepared = conversionPayment({ conversionStates: WAITING, expiresAt: EXPIRED });
  const held = conversionPayment({ conversionStates: WAITING, expiresAt: EXPIRED });
  const rows = [unpaid.conversion, prepared.conversion, prepared.payment, held.conversion, { ...held.payment, expiresAt: FAR, statePath: [S.receivedPrepare, S.reserved], state: S.reserved }];
  t.after(() => deleteTransfers(db, rows.map((row) => row.transferId)));
  await db.transaction((trx) => insertTransfers(trx, rows, T0));
  const claimed = await db.transaction(async (trx) => {
    const found = await claimExpiredTransfers(trx, NOW, 100);
    return lockLinkedTransfers(trx, found.filter((transfer) => rows.some((row) => row.transferId === transfer.transferId)));
  });
  // The prepared payment expired too (RECEIVED_PREPARE, past its expiry): claimed as well.
  assert.deepEqual(idsOf(claimed.transfers).sort(), [unpaid.conversion.transferId, prepared.conversion.transferId, prepared.payment.transferId].sort());
  assert.deepEqual([...claimed.linked.keys()].sort(), [prepared.conversion.transferId, prepared.payment.transferId].sort(),
    'each claimed record\'s partner is locked with it; the unpaid conversion has none');
});

test('a claimed record whose partner another transaction holds is left for the next round, without waiting', async (t) => {
  const pair = conversionPayment({ conversionStates: WAITING, expiresAt: EXPIRED });
  const rows = [pair.conversion, { ...pair.payment, expiresAt: FAR }];
  t.after(() => deleteTransfers(db, rows.map((row) => row.transferId)));
  await db.transaction((trx) => insertTransfers(trx, rows, T0));
  const holder = await openTransaction(db);
  const sweeper = await openTransaction(db);
  await sweeper.trx.raw('SET SESSION innodb_lock_wait_timeout = 1');
  try {
    await findTransfers(holder.trx, [pair.payment.transferId], { forUpdate: true });
    const claimed = await lockLinkedTransfers(sweeper.trx, [(await findTransfers(sweeper.trx, [pair.conversion.transferId])).get(pair.conversion.transferId)]);
    assert.deepEqual(claimed.transfers, [], 'its payment is held: the conversion waits for a later round');
  } finally {
    await holder.trx.rollback();
    await sweeper.trx.raw('SET SESSION innodb_lock_wait_timeout = DEFAULT');
    await sweeper.trx.rollback();
  }
});
