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
import { TRANSFER_KIND } from '../../ledger/domain/transfer-states.js';
import { selectTransfers, transferInsertStatements, transfersFromRows } from '../../ledger/repositories/statements/transfers.js';
import { findTransfers } from '../../ledger/repositories/transfers.js';
import { deleteTransfers, onboardDfsp, onboardHub, paymentRow, units } from './fixtures.js';

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
function conversionPayment() {
  const determiningTransferId = randomUUID();
  const conversion = paymentRow({
    payer, payee: fxp, amount: '100.5', expiresAt: FAR, kind: TRANSFER_KIND.fxTransfer,
    targetAmount: units('92.1234'), targetCurrency: 'EUR', determiningTransferId,
  });
  const payment = paymentRow({
    payer: { name: payer.name, positionAccountId: fxp.positionAccountId }, payee, amount: '92.1234', expiresAt: FAR,
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
