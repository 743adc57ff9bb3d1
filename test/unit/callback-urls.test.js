// Callback URLs: HTTP(S) only, never link-local or cloud metadata addresses unless a lab allows them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callbackEndpointProblem } from '../../ledger/domain/callback-urls.js';
import { EMAIL_ENDPOINT_TYPES, ENDPOINT_TYPES, TOPIC_ENDPOINT_TYPES, URL_ENDPOINT_TYPES } from '../../ledger/domain/participants.js';

const TYPE = 'FSPIOP_CALLBACK_URL_TRANSFER_PUT';
const problem = (value, options) => callbackEndpointProblem({ type: TYPE, value }, options);

test('http and https URLs (templates included) are accepted, private and loopback addresses too', () => {
  for (const value of ['http://dfsp.example/transfers/{{transferId}}', 'https://10.0.0.7:8443/cb', 'http://127.0.0.1:7000', 'http://[fd00::1]/x', 'http://169.255.1.1/']) {
    assert.equal(problem(value), undefined, value);
  }
});

test('other schemes and non-URLs are refused with the reason', () => {
  assert.match(problem('ftp://dfsp.example/x'), /must be an http or https URL, not ftp:/);
  assert.match(problem('file:///etc/passwd'), /http or https/);
  assert.match(problem('not a url'), /is not a URL/);
});

test('link-local and metadata addresses are refused in every spelling', () => {
  for (const value of [
    'http://169.254.169.254/latest/meta-data/', 'http://169.254.10.1:8080/', 'http://2852039166/', 'http://0xA9.0xFE.0xA9.0xFE/',
    'http://[fe80::1]/', 'http://[FEBF::1]/', 'http://[fd00:ec2::254]/', 'http://[::ffff:169.254.169.254]/',
    'http://metadata.google.internal/computeMetadata/v1/', 'http://METADATA.google.internal./', 'https://metadata.goog/',
  ]) {
    assert.match(problem(value) ?? '', /refused: .*(link-local|metadata)/, value);
  }
});

test('a placeholder before the path is refused, whatever its place and spelling; in the path and query it is the template', () => {
  for (const value of [
    'http://{{partyIdentifier}}/parties', 'http://dfsp-{{partyIdentifier}}.example/parties', 'https://dfsp.example:{{ID}}/x',
    '{{partyIdType}}://dfsp.example/x', 'http{{ID}}://dfsp.example/', 'http://{{ID}}@dfsp.example/', 'http://user:{{ID}}@dfsp.example/',
    'http://[{{ID}}]/x', 'HTTP://{{ partyIdentifier }}/x', 'http:\\\\{{ID}}/x', 'http:/{{ID}}/x', 'http:\t//{{ID}}/x',
    'http://{{transferId}}',
  ]) {
    assert.match(problem(value) ?? '', /refused: a placeholder before the path \(in the scheme, host or port\)/, value);
    assert.match(problem(value, { allowLinkLocal: true }) ?? '', /placeholder/, `${value}: no lab setting lets it through`);
  }
  for (const value of [
    'http://dfsp.example/parties/{{partyIdType}}/{{partyIdentifier}}', 'https://dfsp.example:8443/t/{{transferId}}?id={{ID}}',
    'http://dfsp.example\\{{ID}}', 'http://dfsp.example#{{ID}}', 'http://dfsp.example?{{ID}}',
  ]) {
    assert.equal(problem(value), undefined, value);
  }
});

test('a lab may allow them; e-mail and topic endpoint types are not URLs and pass as they are', () => {
  assert.equal(problem('http://169.254.169.254/', { allowLinkLocal: true }), undefined);
  assert.equal(problem('ftp://x', { allowLinkLocal: true }) !== undefined, true, 'the scheme is checked even then');
  assert.equal(callbackEndpointProblem({ type: 'NET_DEBIT_CAP_ADJUSTMENT_EMAIL', value: 'ops@dfsp.example' }), undefined);
  assert.equal(callbackEndpointProblem({ type: 'ALARM_NOTIFICATION_TOPIC', value: 'alarms' }), undefined);
});

test('central-ledger\'s endpoint types are all known, and the URL checks cover exactly the URL types', () => {
  // The switch adds one of its own, for the /services/FXP answers central-ledger has no type for.
  assert.equal(ENDPOINT_TYPES.length, 62 + 1, 'the endpointType seed of central-ledger has 62 types');
  assert.ok(ENDPOINT_TYPES.includes('FSPIOP_CALLBACK_URL_SERVICES'));
  assert.equal(new Set(ENDPOINT_TYPES).size, ENDPOINT_TYPES.length);
  for (const type of ['FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_DELETE', 'FSPIOP_CALLBACK_URL_PARTICIPANT_DELETE', 'TP_CB_URL_SERVICES_PUT_ERROR',
    'NET_DEBIT_CAP_ADJUSTMENT_EMAIL', 'SETTLEMENT_TRANSFER_POSITION_CHANGE_EMAIL', 'NET_DEBIT_CAP_THRESHOLD_BREACH_EMAIL']) {
    assert.ok(ENDPOINT_TYPES.includes(type), type);
  }
  for (const type of URL_ENDPOINT_TYPES) {
    assert.match(callbackEndpointProblem({ type, value: 'http://169.254.169.254/' }) ?? '', /refused/, type);
    assert.match(callbackEndpointProblem({ type, value: 'ops@dfsp.example' }) ?? '', /not a URL/, type);
  }
  for (const type of [...EMAIL_ENDPOINT_TYPES, ...TOPIC_ENDPOINT_TYPES]) {
    assert.ok(!URL_ENDPOINT_TYPES.includes(type), type);
    assert.equal(callbackEndpointProblem({ type, value: 'ops@dfsp.example' }), undefined, type);
  }
});
