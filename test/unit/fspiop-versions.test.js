// FSPIOP versions: negotiation at the edge (Content-Type, Accept lists, 406/3001 bodies),
// each version validated against its own document, and the version of what the hub
// originates (the message it answers, what a DFSP last sent, the scheme default).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  acceptedVersionsOf, answerVersionOf, contentVersionOf, defaultVersionOf, senderVersionsOf, versionsOf,
} from '../../platform/fspiop/versions.js';
import { createRequestValidator } from '../../platform/fspiop/edge.js';
import { buildCallbackHeaders } from '../../platform/delivery/callback-request.js';
import { createDfspVersions } from '../../platform/delivery/dfsp-versions.js';
import { requesterErrorEvent } from '../../platform/delivery/requester-errors.js';
import { OUTCOME as DELIVERY } from '../../platform/delivery/deliver.js';
import { readDeliveryConfig } from '../../platform/delivery/config.js';
import { notificationRecords } from '../../handlers/transfer-records.js';
import { OUTCOME, tell } from '../../ledger/domain/outcomes.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { decodeEvent } from '../../platform/kafka/envelope.js';

const media = (resource, version) => `application/vnd.interoperability.${resource}+json${version === undefined ? '' : `;version=${version}`}`;
const TRANSFER_ID = 'b51ec534-ee48-4575-b6a9-ead2955b8069';
const ULID = '01HZX3W4B6Q8R9S0T1V2W3X4Y5';
const headersIn = (version, accept = media('transfers', version.split('.')[0])) => ({
  'content-type': media('transfers', version), accept, date: new Date().toUTCString(), 'fspiop-source': 'payerfsp',
});

test('versions: every resource of today is served in 1.0, 1.1 and 2.0; an unknown resource is a programming error', () => {
  for (const resource of ['parties', 'participants', 'quotes', 'transfers', 'transactionRequests', 'authorizations', 'bulkTransfers']) assert.deepEqual(versionsOf(resource), ['1.0', '1.1', '2.0']);
  assert.throws(() => versionsOf('consentRequests'), /no FSPIOP versions/);
});

test('versions: Content-Type states major.minor; a major alone or none states nothing', () => {
  assert.equal(contentVersionOf(media('transfers', '2.0')), '2.0');
  assert.equal(contentVersionOf('application/vnd.interoperability.transfers+json ; version=1.0'), '1.0');
  assert.equal(contentVersionOf(media('transfers', '2')), null);
  assert.equal(contentVersionOf(media('transfers')), null);
  assert.equal(contentVersionOf(undefined), null);
});

test('versions: Accept lists are read entry by entry, a major admitting its minors, newest first', () => {
  assert.deepEqual(acceptedVersionsOf(media('transfers', '2'), 'transfers'), ['2.0']);
  assert.deepEqual(acceptedVersionsOf(media('transfers', '1'), 'transfers'), ['1.1', '1.0']);
  assert.deepEqual(acceptedVersionsOf(media('transfers', '1.0'), 'transfers'), ['1.0']);
  assert.deepEqual(acceptedVersionsOf(`${media('transfers', '1.1')}, ${media('transfers', '2.0')}`, 'transfers'), ['2.0', '1.1']);
  assert.deepEqual(acceptedVersionsOf(media('transfers'), 'transfers'), ['2.0', '1.1', '1.0'], 'no version: any');
  assert.deepEqual(acceptedVersionsOf(media('transfers', '3'), 'transfers'), []);
  assert.deepEqual(acceptedVersionsOf(media('quotes', '2'), 'transfers'), [], 'another resource admits nothing');
});

test('versions: a DFSP is answered in the version it sent, unless its Accept names others', () => {
  assert.equal(answerVersionOf(headersIn('2.0'), 'transfers'), '2.0');
  assert.equal(answerVersionOf(headersIn('1.1'), 'transfers'), '1.1');
  assert.equal(answerVersionOf(headersIn('1.0', media('transfers', '1')), 'transfers'), '1.0', 'version=1 admits the 1.0 it sent');
  assert.equal(answerVersionOf(headersIn('1.1', media('transfers', '2')), 'transfers'), '2.0', 'it sent 1.1 but takes only 2');
  assert.equal(answerVersionOf({ 'content-type': media('transfers', '2.0') }, 'transfers'), '2.0', 'a callback carries no Accept');
  assert.equal(answerVersionOf({ 'content-type': media('transfers', '2.0'), accept: '*/*' }, 'transfers'), '2.0', 'or an HTTP client\'s');
  assert.equal(answerVersionOf({ accept: media('transfers', '1') }, 'transfers'), '1.1');
  assert.equal(answerVersionOf({}, 'transfers'), null, 'an expiry has no headers');
  assert.equal(answerVersionOf(undefined, 'transfers'), null);
});

test('versions: the scheme default, or a resource\'s newest when it is not served in the default', () => {
  assert.equal(defaultVersionOf('transfers'), '1.1');
  assert.equal(defaultVersionOf('transfers', '2.0'), '2.0');
  assert.equal(defaultVersionOf('transfers', '1.0'), '1.0');
  assert.equal(defaultVersionOf('fxTransfersOfTomorrow', '1.1'), '1.1', 'a resource outside the table is treated as served in every version');
});

test('versions: a batch\'s messages say which version each sender is answered in about each id', () => {
  const messages = [
    { id: 't1', from: 'payerfsp', headers: headersIn('1.1') },
    { id: 't1', from: 'payeefsp', headers: { 'content-type': media('transfers', '2.0') } },
    { id: 't2', from: 'payerfsp', headers: {} },
  ];
  const versionOf = senderVersionsOf(messages, 'transfers');
  assert.equal(versionOf('t1', 'payerfsp'), '1.1');
  assert.equal(versionOf('t1', 'payeefsp'), '2.0');
  assert.equal(versionOf('t2', 'payerfsp'), undefined);
  assert.equal(versionOf('t3', 'payeefsp'), undefined);
});

// The edge: each version checked against its own document.
const postTransfer = createRequestValidator({ resource: 'transfers', method: 'POST', path: '/transfers' });
const getTransfer = createRequestValidator({ resource: 'transfers', method: 'GET', path: '/transfers/{ID}', pathSchemas: { ID: 'CorrelationId' } });
const patchTransfer = createRequestValidator({ resource: 'transfers', method: 'PATCH', path: '/transfers/{ID}', pathSchemas: { ID: 'CorrelationId' } });
const transfer = (overrides = {}) => ({
  transferId: TRANSFER_ID, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { amount: '10.5', currency: 'USD' },
  ilpPacket: 'AYIBgQAAAAAAAASwNGxldmVsb25lLmRmc3AxLm1lci45T2RTOF81MDdqUUZERmZlakgyOVc4bXFmNEpLMHlGTFGCAUBQU0svMS4w',
  condition: 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA', expiration: new Date(Date.now() + 60_000).toISOString(), ...overrides,
});
const payload = (value) => Buffer.from(JSON.stringify(value));

test('edge: 1.0, 1.1 and 2.0 are accepted, with Accept naming one major or several versions', () => {
  for (const version of ['1.0', '1.1', '2.0']) {
    const result = postTransfer({ headers: headersIn(version), params: {}, payload: payload(transfer()) });
    assert.equal(result.failure, undefined, `${version}: ${JSON.stringify(result.failure?.body)}`);
  }
  const listing = headersIn('2.0', `${media('transfers', '3.0')}, ${media('transfers', '2.0')}`);
  assert.equal(postTransfer({ headers: listing, params: {}, payload: payload(transfer()) }).failure, undefined);
});

test('edge: a property 2.0 forbids is refused in 2.0 (3103, as Mojaloop maps additionalProperties) and accepted in 1.1', () => {
  const body = payload(transfer({ note: 'not in the schema' }));
  const strict = postTransfer({ headers: headersIn('2.0'), params: {}, payload: body });
  assert.equal(strict.failure.httpStatus, 400);
  assert.equal(strict.failure.body.errorInformation.errorCode, '3103');
  assert.match(strict.failure.body.errorInformation.errorDescription, /\/requestBody must NOT have additional properties/);
  const lenient = postTransfer({ headers: headersIn('1.1'), params: {}, payload: body });
  assert.equal(lenient.failure, undefined);
  assert.equal(lenient.body.note, 'not in the schema', 'forwarded as it came');
});

test('edge: a ULID is a transfer id in 2.0 and not in 1.1', () => {
  assert.equal(getTransfer({ headers: headersIn('2.0'), params: { ID: ULID } }).failure, undefined);
  assert.equal(getTransfer({ headers: headersIn('1.1'), params: { ID: ULID } }).failure.code, 3100);
  assert.equal(postTransfer({ headers: headersIn('2.0'), params: {}, payload: payload(transfer({ transferId: ULID })) }).failure, undefined);
});

test('edge: Accept naming only version 3 is 406/3001 with every supported version in the extension list', () => {
  const { failure: refused } = postTransfer({ headers: headersIn('1.1', media('transfers', '3')), params: {}, payload: payload(transfer()) });
  assert.equal(refused.httpStatus, 406);
  assert.deepEqual(refused.body, {
    errorInformation: {
      errorCode: '3001',
      errorDescription: 'Unacceptable version requested - The Client requested an unsupported version, see extension list for supported version(s).',
      extensionList: { extension: [{ key: '1', value: '0' }, { key: '1', value: '1' }, { key: '2', value: '0' }] },
    },
  });
});

test('edge: an operation a version lacks (PATCH /transfers in 1.0) is 3001 naming the versions that have it', () => {
  const headers = { 'content-type': media('transfers', '1.0'), date: new Date().toUTCString(), 'fspiop-source': 'payerfsp' };
  const body = payload({ transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() });
  const { failure: refused } = patchTransfer({ headers, params: { ID: TRANSFER_ID }, payload: body });
  assert.equal(refused.httpStatus, 406);
  assert.deepEqual(refused.body.errorInformation.extensionList.extension, [{ key: '1', value: '1' }, { key: '2', value: '0' }]);
  assert.equal(patchTransfer({ headers: { ...headers, 'content-type': media('transfers', '2.0') }, params: { ID: TRANSFER_ID }, payload: body }).failure, undefined);
});

// What the hub originates.
const URL_PUT = new URL('http://payer.example/transfers/x');
const hubCall = (to, callback = {}) => ({
  id: TRANSFER_ID, type: 'notification', action: 'error', from: 'Hub', to,
  callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', templateParams: { transferId: TRANSFER_ID }, method: 'PUT', resource: 'transfers', ...callback },
  headers: {}, body: {},
});
const forwardFrom = (from, contentType, accept) => ({
  id: TRANSFER_ID, type: 'notification', action: 'prepare', from, to: 'other',
  callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', templateParams: { transferId: TRANSFER_ID }, method: 'POST', resource: 'transfers' },
  headers: { 'content-type': contentType, ...(accept ? { accept } : {}), 'fspiop-source': from }, rawBody: '{}',
});
const contentTypeOf = (event, versions) => buildCallbackHeaders({ event, url: URL_PUT, hubName: 'Hub', now: new Date(), versions })['content-type'];

test('hub calls: the event\'s version first, then what the DFSP last sent the resource in, then the scheme default', () => {
  const versions = createDfspVersions({ schemeDefault: '1.1' });
  assert.equal(contentTypeOf(hubCall('v2fsp'), versions), media('transfers', '1.1'), 'not heard from: the default');
  versions.learn(forwardFrom('v2fsp', media('transfers', '2.0'), media('transfers', '2')));
  assert.equal(contentTypeOf(hubCall('v2fsp'), versions), media('transfers', '2.0'), 'what it last sent');
  assert.equal(contentTypeOf(hubCall('v2fsp', { resource: 'quotes' }), versions), media('quotes', '1.1'), 'per resource');
  assert.equal(contentTypeOf(hubCall('v2fsp', { version: '1.0' }), versions), media('transfers', '1.0'), 'the event names it');
  versions.learn(forwardFrom('v2fsp', media('transfers', '1.1')));
  assert.equal(contentTypeOf(hubCall('v2fsp'), versions), media('transfers', '1.1'), 'the last message counts');
  assert.equal(contentTypeOf(hubCall('v2fsp')), media('transfers', '1.1'), 'without a memory: the default');
  assert.equal(contentTypeOf(hubCall('x'), createDfspVersions({ schemeDefault: '2.0' })), media('transfers', '2.0'));
});

test('hub calls: a PATCH is never 1.0, which has none; a hub GET asks for the major it speaks', () => {
  const versions = createDfspVersions({ schemeDefault: '1.0' });
  assert.equal(contentTypeOf(hubCall('old', { method: 'PATCH' }), versions), media('transfers', '1.1'));
  const get = buildCallbackHeaders({ event: hubCall('new', { method: 'GET', version: '2.0' }), url: URL_PUT, hubName: 'Hub', now: new Date(), versions });
  assert.equal(get.accept, media('transfers', '2'));
});

test('hub calls: a forward keeps the sender\'s content type whatever its receiver speaks', () => {
  const versions = createDfspVersions({ schemeDefault: '2.0' });
  const forward = forwardFrom('payerfsp', media('transfers', '1.1'), media('transfers', '1'));
  assert.equal(contentTypeOf(forward, versions), media('transfers', '1.1'));
});

test('hub calls: the requester of an undeliverable forward hears in its own version', () => {
  const forward = {
    ...forwardFrom('payerfsp', media('transfers', '2.0'), media('transfers', '2')),
    ifUndeliverable: { to: 'payerfsp', callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', templateParams: { transferId: TRANSFER_ID }, method: 'PUT', resource: 'transfers' } },
  };
  const error = requesterErrorEvent(forward, { outcome: DELIVERY.noEndpoint, fsp: 'unknown' }, 'Hub');
  assert.equal(error.callback.version, '2.0');
  assert.equal(contentTypeOf(error), media('transfers', '2.0'));
});

test('hub calls: transfer outcomes answering a message of their receiver name its version; others leave it to the deliverer', () => {
  const topics = { notificationEvent: 'n' };
  const prepare = { id: TRANSFER_ID, from: 'payerfsp', headers: headersIn('2.0') };
  const fulfil = { id: TRANSFER_ID, from: 'payeefsp', headers: { 'content-type': media('transfers', '1.1') } };
  const failed = failure(FAILURE.insufficientLiquidity, 'no');
  const view = { state: 'COMMITTED', completedAt: Date.now() };
  const outcomes = [
    tell.error(TRANSFER_ID, 'payerfsp', failed), tell.patchFinalState(TRANSFER_ID, 'payeefsp', view),
    tell.error(TRANSFER_ID, 'thirdfsp', failed), tell.forwardPrepare(TRANSFER_ID, 'payeefsp', { ...prepare, rawBody: '{}' }),
  ];
  const events = notificationRecords(topics, outcomes, 'Hub', [prepare, fulfil]).map((record) => decodeEvent(record.value));
  assert.deepEqual(events.map((event) => event.callback.version), ['2.0', '1.1', undefined, undefined]);
  assert.equal(outcomes[1].type, OUTCOME.patchFinalState);
  assert.deepEqual(Object.keys(events[1].body).sort(), ['completedTimestamp', 'transferState'], 'the same PATCH body in 1.1 and 2.0');
});

test('FSPIOP_VERSION_DEFAULT is 1.1 unless set, and only to a version the switch knows', () => {
  assert.equal(readDeliveryConfig({}).versionDefault, '1.1');
  assert.equal(readDeliveryConfig({ FSPIOP_VERSION_DEFAULT: '2.0' }).versionDefault, '2.0');
  assert.throws(() => readDeliveryConfig({ FSPIOP_VERSION_DEFAULT: '2' }), /FSPIOP_VERSION_DEFAULT must be one of 1.0, 1.1, 2.0/);
});
