// Every admin route with a body rejects malformed input with a 400 errorInformation:
// unparseable JSON and a malformed currency 3101, a missing body or element 3102, any other
// schema violation 3100; path and query parameters are checked too. Nothing answers 500.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { PAYLOAD_BYTES_MAX } from '../../platform/http/server.js';
import { onboardDfsp, setUpHub, startAdminApi } from '../support/admin-api.js';

let api;
let settlementId;
before(async () => {
  api = await startAdminApi();
  await setUpHub(api.request);
  ({ settlementAccountId: settlementId } = await onboardDfsp(api.request, { name: 'dfsp1' }));
});
after(async () => { await api?.stop(); });

const transferId = 'a5a0e6b2-6c6b-4b1e-9c41-1a2b3c4d5e6f';

/** Each route with a valid body and one whose only fault is a wrong type or value. */
const BODY_ROUTES = [
  ['POST', '/participants/Hub/accounts', { currency: 'USD', type: 'HUB_RECONCILIATION' }, { currency: 'USD', type: 'POSITION' }],
  ['POST', '/settlementModels', {
    name: 'M2', settlementGranularity: 'NET', settlementInterchange: 'MULTILATERAL', settlementDelay: 'DEFERRED',
    requireLiquidityCheck: true, ledgerAccountType: 'POSITION', settlementAccountType: 'SETTLEMENT', autoPositionReset: true,
  }, {
    name: 'M2', settlementGranularity: 'SOMETIMES', settlementInterchange: 'MULTILATERAL', settlementDelay: 'DEFERRED',
    requireLiquidityCheck: 'yes', ledgerAccountType: 'POSITION', settlementAccountType: 'SETTLEMENT', autoPositionReset: true,
  }],
  ['POST', '/participants', { name: 'dfsp9', currency: 'USD' }, { name: 'd', currency: 'USD' }],
  ['PUT', '/participants/dfsp1', { isActive: true }, { isActive: 'maybe' }],
  ['POST', '/participants/dfsp1/initialPositionAndLimits', { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: 1 } },
    { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: -1 } }],
  ['PUT', '/participants/dfsp1/limits', { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: 1 } },
    { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value: '1.23456' } }],
  ['POST', '/participants/dfsp1/endpoints', { type: 'FSPIOP_CALLBACK_URL_QUOTES', value: 'http://x' },
    { type: 'NOT_AN_ENDPOINT_TYPE', value: 'http://x' }],
  ['PUT', '/participants/dfsp1/accounts/1', { isActive: true }, { isActive: 1 }],
  ['POST', '/participants/dfsp1/accounts/SETTLEMENT_ID', {
    transferId, externalReference: 'r', action: 'recordFundsIn', reason: 'r', amount: { amount: '1', currency: 'USD' },
  }, { transferId: 'not-a-uuid', externalReference: 'r', action: 'recordFundsIn', reason: 'r', amount: { amount: '1', currency: 'USD' } }],
  ['PUT', `/participants/dfsp1/accounts/SETTLEMENT_ID/transfers/${transferId}`, { action: 'recordFundsOutCommit', reason: 'r' },
    { action: 'recordFundsIn', reason: 'r' }],
];

const pathOf = (path) => path.replace('SETTLEMENT_ID', String(settlementId));

async function expectError(method, path, body, status, code) {
  const result = await api.request(method, path, body);
  assert.equal(result.status, status, `${method} ${path} ${JSON.stringify(body)} → ${result.text}`);
  assert.equal(result.body.errorInformation.errorCode, code, `${method} ${path}: ${result.text}`);
  assert.ok(result.body.errorInformation.errorDescription.length > 10, 'the description says what is wrong');
  return result;
}

test('every body route: malformed JSON 3101, no body 3102, a missing element 3102, a wrong value 3100', async () => {
  for (const [method, rawPath, valid, wrong] of BODY_ROUTES) {
    const path = pathOf(rawPath);
    await expectError(method, path, '{"currency": ', 400, '3101');
    await expectError(method, path, undefined, 400, '3102');
    await expectError(method, path, {}, 400, '3102');
    const [firstKey] = Object.keys(valid);
    const { [firstKey]: _dropped, ...missingOne } = valid;
    const missing = await expectError(method, path, missingOne, 400, '3102');
    assert.match(missing.body.errorInformation.errorDescription, new RegExp(firstKey));
    await expectError(method, path, wrong, 400, '3100');
    await expectError(method, path, { ...valid, unexpectedField: 1 }, 400, '3100');
  }
});

test('a malformed currency, in a body or a query, is 3101 "Malformed syntax", as central-ledger answers it', async () => {
  const answers = [
    await expectError('POST', '/participants', { name: 'dfsp8', currency: 'XYZW' }, 400, '3101'),
    await expectError('POST', '/participants/dfsp1/initialPositionAndLimits', { currency: 'usd', limit: { type: 'NET_DEBIT_CAP', value: 1 } }, 400, '3101'),
    await expectError('GET', '/participants/dfsp1/limits?currency=US', undefined, 400, '3101'),
  ];
  for (const answer of answers) assert.match(answer.body.errorInformation.errorDescription, /^Malformed syntax - .*currency/);
});

test('path and query parameters are validated', async () => {
  await expectError('GET', '/participants/nobody', undefined, 400, '3200');
  await expectError('GET', '/participants/no%20body', undefined, 400, '3100');
  await expectError('GET', '/participants/nobody/accounts', undefined, 400, '3200');
  await expectError('GET', '/participants/dfsp1/positions?currency=usd', undefined, 400, '3101');
  await expectError('GET', '/participants/dfsp1/limits?colour=red', undefined, 400, '3100');
  await expectError('GET', '/participants/limits?currency=1', undefined, 400, '3101');
  await expectError('PUT', '/participants/dfsp1/accounts/abc', { isActive: true }, 400, '3100');
  await expectError('PUT', '/participants/dfsp1/accounts/99999', { isActive: true }, 400, '3200');
  await expectError('POST', '/participants/nobody/endpoints', { type: 'FSPIOP_CALLBACK_URL_QUOTES', value: 'http://x' }, 400, '3200');
  await expectError('GET', '/no/such/route', undefined, 404, '3002');
});

test('a body over the size limit is refused with 3104', async () => {
  const huge = JSON.stringify({ name: 'x'.repeat(PAYLOAD_BYTES_MAX + 10), currency: 'USD' });
  await expectError('POST', '/participants', huge, 413, '3104');
});

test('the valid bodies of the walk are accepted, so the failures above were about the faults', async () => {
  const accepted = await api.request('POST', '/participants/dfsp1/endpoints', BODY_ROUTES[6][2]);
  assert.equal(accepted.status, 201);
  const funds = await api.request('POST', pathOf(BODY_ROUTES[8][1]), BODY_ROUTES[8][2]);
  assert.equal(funds.status, 202);
});

test('every endpoint type central-ledger seeds is accepted; e-mail types take an e-mail address, URL types a URL', async () => {
  const urlTypes = ['FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_DELETE', 'FSPIOP_CALLBACK_URL_PARTICIPANT_DELETE',
    'FSPIOP_CALLBACK_URL_FX_QUOTES', 'TP_CB_URL_CONSENT_REQUEST_PATCH', 'TP_CB_URL_SERVICES_PUT_ERROR', 'ALARM_NOTIFICATION_URL'];
  for (const type of urlTypes) {
    const result = await api.request('POST', '/participants/dfsp1/endpoints', { type, value: 'http://dfsp1.example/cb/{{partyIdType}}' });
    assert.equal(result.status, 201, `${type}: ${result.text}`);
  }
  for (const type of ['NET_DEBIT_CAP_ADJUSTMENT_EMAIL', 'SETTLEMENT_TRANSFER_POSITION_CHANGE_EMAIL', 'NET_DEBIT_CAP_THRESHOLD_BREACH_EMAIL']) {
    assert.equal((await api.request('POST', '/participants/dfsp1/endpoints', { type, value: 'ops@dfsp1.example' })).status, 201, type);
    const url = await api.request('POST', '/participants/dfsp1/endpoints', { type, value: 'http://dfsp1.example/mail' });
    assert.equal(url.status, 400, `${type} takes an e-mail address, not a URL`);
    assert.match(url.body.errorInformation.errorDescription, /email/);
  }
  const topic = await api.request('POST', '/participants/dfsp1/endpoints', { type: 'ALARM_NOTIFICATION_TOPIC', value: 'topic alarms!' });
  assert.equal(topic.status, 400, 'a Kafka topic name has no spaces');
  assert.equal((await api.request('POST', '/participants/dfsp1/endpoints', { type: 'ALARM_NOTIFICATION_TOPIC', value: 'dfsp1-alarms' })).status, 201);
  const mailAsUrl = await api.request('POST', '/participants/dfsp1/endpoints', { type: 'FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_DELETE', value: 'ops@dfsp1.example' });
  assert.deepEqual([mailAsUrl.status, mailAsUrl.body.errorInformation.errorCode], [400, '3100'], 'a URL type still takes only a URL');
  const metadata = await api.request('POST', '/participants/dfsp1/endpoints', { type: 'TP_CB_URL_ACCOUNTS_GET', value: 'http://169.254.169.254/' });
  assert.equal(metadata.status, 400, 'the callback URL safety checks apply to every URL type');
  const stored = (await api.request('GET', '/participants/dfsp1/endpoints?type=NET_DEBIT_CAP_ADJUSTMENT_EMAIL')).body;
  assert.deepEqual(stored, { type: 'NET_DEBIT_CAP_ADJUSTMENT_EMAIL', value: 'ops@dfsp1.example' });
});

test('settlement models: the account types central-ledger seeds beyond POSITION and SETTLEMENT; hub types are not a model\'s', async () => {
  const model = (name, ledgerAccountType, settlementAccountType) => ({
    name, settlementGranularity: 'GROSS', settlementInterchange: 'BILATERAL', settlementDelay: 'IMMEDIATE',
    currency: 'EUR', requireLiquidityCheck: false, ledgerAccountType, settlementAccountType, autoPositionReset: false,
  });
  assert.equal((await api.request('POST', '/settlementModels', model('FEES', 'INTERCHANGE_FEE', 'INTERCHANGE_FEE_SETTLEMENT'))).status, 201);
  assert.equal((await api.request('POST', '/settlementModels', model('REMITTANCE', 'POSITION_REMITTANCE', 'SETTLEMENT_REMITTANCE'))).status, 201);
  await expectError('POST', '/settlementModels', model('HUBBY', 'HUB_RECONCILIATION', 'SETTLEMENT'), 400, '3100');
  await expectError('POST', '/settlementModels', model('UNKNOWN', 'POSITION', 'NOT_A_TYPE'), 400, '3100');
  const again = await api.request('POST', '/settlementModels', model('FEES', 'INTERCHANGE_FEE', 'INTERCHANGE_FEE_SETTLEMENT'));
  assert.deepEqual([again.status, again.body.errorInformation],
    [400, { errorCode: '3000', errorDescription: 'Generic client error - Settlement Model already exists' }]);
});
