// What the transfer handlers produce for a conversion (handlers/transfer-records.js): its
// callbacks go to the FX_TRANSFER endpoints with {{commitRequestId}} in the URL, as v2.0
// /fxTransfers with conversionState where a payment's carry transferState, the PATCH to the
// FXP without a fulfilment; a conversion payment's position event names its conversion and
// the accounts the conversion moves. A payment's callbacks stay as they were.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEvent } from '../../platform/kafka/envelope.js';
import { buildCallbackHeaders, callbackUrl, invalidNotificationReason } from '../../platform/delivery/callback-request.js';
import { tell, tellFx } from '../../ledger/domain/outcomes.js';
import { TRANSFER_STATE } from '../../ledger/domain/transfer-states.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { notificationEvent, positionRecords } from '../../handlers/transfer-records.js';

const ID = '01HZ3J3K4M5N6P7Q8R9S0T1V2W';
const message = { id: ID, type: 'fxTransfer', action: 'fx-prepare', from: 'payerfsp', to: 'fxp1', headers: { 'content-type': 'application/vnd.interoperability.fxTransfers+json;version=2.0' }, body: { commitRequestId: ID }, at: 1 };
const completedAt = new Date('2030-01-02T03:04:05.000Z');

test('a conversion\'s forwards go to the FX_TRANSFER endpoints by commitRequestId, with the FX error endpoint for an undeliverable prepare', () => {
  const forward = notificationEvent(tellFx.forwardPrepare(ID, 'fxp1', message), 'Hub');
  assert.deepEqual(forward.callback, {
    endpointType: 'FSPIOP_CALLBACK_URL_FX_TRANSFER_POST', templateParams: { commitRequestId: ID }, resource: 'fxTransfers', version: '2.0', method: 'POST',
  });
  assert.equal(forward.ifUndeliverable.callback.endpointType, 'FSPIOP_CALLBACK_URL_FX_TRANSFER_ERROR');
  assert.equal(invalidNotificationReason(forward), null);
  const url = callbackUrl('http://payer:4000/fxTransfers/{{commitRequestId}}', forward.callback);
  assert.equal(url.href, `http://payer:4000/fxTransfers/${ID}`);
  assert.equal(buildCallbackHeaders({ event: forward, url, hubName: 'Hub', now: completedAt })['content-type'], message.headers['content-type'],
    'a forward keeps the sender\'s content type');
});

test('the hub\'s PATCH to the FXP carries conversionState and no fulfilment, in v2.0', () => {
  const view = { state: TRANSFER_STATE.committed, completedAt, fulfilment: 'secret' };
  const patch = notificationEvent(tellFx.patchFinalState(ID, 'fxp1', view), 'Hub');
  assert.deepEqual([patch.callback.endpointType, patch.callback.method], ['FSPIOP_CALLBACK_URL_FX_TRANSFER_PUT', 'PATCH']);
  assert.deepEqual(patch.body, { conversionState: 'COMMITTED', completedTimestamp: completedAt.toISOString() });
  const url = callbackUrl('http://fxp:4000/fxTransfers/{{commitRequestId}}', patch.callback);
  assert.equal(buildCallbackHeaders({ event: patch, url, hubName: 'Hub', now: completedAt })['content-type'], 'application/vnd.interoperability.fxTransfers+json;version=2.0');
  const aborted = notificationEvent(tellFx.patchFinalState(ID, 'fxp1', { state: TRANSFER_STATE.abortedError, completedAt, failure: failure(FAILURE.transferExpired, 'expired') }), 'Hub');
  assert.equal(aborted.body.conversionState, 'ABORTED');
  assert.ok(aborted.body.extensionList, 'an abort carries its cause');
  const error = notificationEvent(tellFx.error(ID, 'payerfsp', failure(FAILURE.validation, 'bad')), 'Hub');
  assert.equal(error.callback.endpointType, 'FSPIOP_CALLBACK_URL_FX_TRANSFER_ERROR');
  assert.equal(error.body.errorInformation.errorCode, '3100');
});

test('a payment\'s callbacks are unchanged: TRANSFER endpoints by transferId, transferState bodies, no version', () => {
  const state = notificationEvent(tell.state(ID, 'payerfsp', { state: TRANSFER_STATE.committed, completedAt, fulfilment: 'f' }), 'Hub');
  assert.deepEqual(state.callback, { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', templateParams: { transferId: ID }, resource: 'transfers', method: 'PUT' });
  assert.deepEqual(state.body, { transferState: 'COMMITTED', completedTimestamp: completedAt.toISOString(), fulfilment: 'f' });
});

test('a conversion payment\'s position event names its conversion and linked accounts; a plain one names neither', () => {
  const topics = { transferPositionBatch: 'position' };
  const [linked, plain] = positionRecords(topics, [
    { accountId: 12, action: 'commit', message, commitRequestId: ID, linkedAccountIds: [11] },
    { accountId: 1, action: 'prepare', message },
  ]);
  assert.equal(linked.key, '12');
  const decoded = decodeEvent(linked.value);
  assert.deepEqual([decoded.commitRequestId, decoded.linkedAccountIds], [ID, [11]]);
  const plainDecoded = decodeEvent(plain.value);
  assert.equal('commitRequestId' in plainDecoded, false);
  assert.equal('linkedAccountIds' in plainDecoded, false);
});
