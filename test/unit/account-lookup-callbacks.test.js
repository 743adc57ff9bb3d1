// The notification events account lookup produces: which endpoint, whose headers, which key.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  forwardEvent, hubEvent, participantEndpoint, partyEndpoint, partyErrorEvent, partyTemplateParams,
} from '../../account-lookup/callbacks.js';
import { partyKey, partyOf } from '../../account-lookup/domain/parties.js';
import { invalidNotificationReason, callbackUrl } from '../../platform/delivery/callback-request.js';

const HEADERS = { 'content-type': 'application/vnd.interoperability.parties+json;version=1.1', date: 'Tue, 15 Nov 1994 08:12:31 GMT', 'fspiop-source': 'payerfsp' };
const accepted = { headers: HEADERS, params: { Type: 'MSISDN', ID: '27713803912' }, body: undefined, rawBody: undefined, receivedAt: 1234 };

test('a party is keyed and templated by type, id and sub-id', () => {
  const plain = partyOf({ Type: 'MSISDN', ID: '123' });
  const sub = partyOf({ Type: 'PERSONAL_ID', ID: '123', SubId: 'PASSPORT' });
  assert.deepEqual(plain, { type: 'MSISDN', id: '123' });
  assert.equal(partyKey(plain), 'MSISDN/123');
  assert.equal(partyKey(sub), 'PERSONAL_ID/123/PASSPORT');
  assert.deepEqual(partyTemplateParams(sub), { partyIdType: 'PERSONAL_ID', partyIdentifier: '123', partySubIdOrType: 'PASSPORT' });
  assert.deepEqual(partyTemplateParams(plain), { partyIdType: 'MSISDN', partyIdentifier: '123' });
});

test('a sub-id selects Mojaloop\'s SUB_ID endpoint types', () => {
  const plain = { type: 'MSISDN', id: '1' };
  const sub = { ...plain, subId: 'x' };
  assert.equal(partyEndpoint('get', plain), 'FSPIOP_CALLBACK_URL_PARTIES_GET');
  assert.equal(partyEndpoint('get', sub), 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_GET');
  assert.equal(partyEndpoint('error', sub), 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT_ERROR');
  assert.equal(participantEndpoint('put', plain), 'FSPIOP_CALLBACK_URL_PARTICIPANT_PUT');
  assert.equal(participantEndpoint('error', sub), 'FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT_ERROR');
});

test('a forwarded lookup keeps the payer\'s headers and goes to the payee\'s PARTIES_GET endpoint', () => {
  const party = partyOf(accepted.params);
  const event = forwardEvent({ accepted, party, action: 'lookup', to: 'payeefsp', endpointType: partyEndpoint('get', party), method: 'GET' });
  assert.deepEqual(event, {
    id: 'MSISDN/27713803912', type: 'notification', action: 'lookup', from: 'payerfsp', to: 'payeefsp',
    callback: { endpointType: 'FSPIOP_CALLBACK_URL_PARTIES_GET', templateParams: { partyIdType: 'MSISDN', partyIdentifier: '27713803912' }, method: 'GET', resource: 'parties' },
    headers: HEADERS, rawBody: undefined, at: 1234,
    // If the payee cannot be reached, the payer hears it on its PARTIES_PUT_ERROR endpoint.
    ifUndeliverable: {
      to: 'payerfsp',
      callback: { endpointType: 'FSPIOP_CALLBACK_URL_PARTIES_PUT_ERROR', templateParams: { partyIdType: 'MSISDN', partyIdentifier: '27713803912' }, method: 'PUT', resource: 'parties' },
    },
  });
  const template = 'http://payee.example/parties/{{partyIdType}}/{{partyIdentifier}}';
  assert.equal(callbackUrl(template, event.callback).href, 'http://payee.example/parties/MSISDN/27713803912');
});

test('a party answer that arrived in ISO 20022 is forwarded with its FSPIOP form, the body an FSPIOP payer is sent', async () => {
  const { fspiopCallbackBody } = await import('../../platform/delivery/callback-request.js');
  const party = partyOf(accepted.params);
  const body = { party: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '27713803912', fspId: 'payeefsp' } } };
  const iso = { ...accepted, headers: { ...HEADERS, 'content-type': 'application/vnd.interoperability.iso20022.parties+json;version=2.0' }, body };
  const event = forwardEvent({ accepted: iso, party, action: 'answer', to: 'payerfsp', endpointType: partyEndpoint('put', party), method: 'PUT' });
  assert.deepEqual(event.body, body);
  assert.deepEqual(JSON.parse(fspiopCallbackBody(event).toString('utf8')), body);
  // An FSPIOP answer goes on as the bytes it came in.
  const fspiop = forwardEvent({ accepted: { ...accepted, body, rawBody: JSON.stringify(body) }, party, action: 'answer', to: 'payerfsp', endpointType: partyEndpoint('put', party), method: 'PUT' });
  assert.equal(fspiop.body, undefined);
});

test('a hub error is a PUT …/error with no DFSP headers and the errorInformation body', () => {
  const party = { type: 'MSISDN', id: '1', subId: 'a b' };
  const errorBody = { errorInformation: { errorCode: '3204', errorDescription: 'Party not found' } };
  const event = partyErrorEvent({ party, resource: 'parties', hubName: 'Hub', accepted, errorBody });
  assert.equal(event.callback.endpointType, 'FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT_ERROR');
  assert.deepEqual([event.from, event.to, event.callback.method, event.headers, event.body, event.at], ['Hub', 'payerfsp', 'PUT', {}, errorBody, 1234]);
  assert.equal(event.callback.version, '1.1', 'in the version the request was sent in');
  assert.equal(invalidNotificationReason(event), null);
  const template = 'http://payer.example/parties/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}/error';
  assert.equal(callbackUrl(template, event.callback).pathname, '/parties/MSISDN/1/a%20b/error');
  const participants = partyErrorEvent({ party: { type: 'MSISDN', id: '1' }, resource: 'participants', hubName: 'Hub', accepted, errorBody });
  assert.equal(participants.callback.endpointType, 'FSPIOP_CALLBACK_URL_PARTICIPANT_PUT_ERROR');
  assert.equal(participants.callback.resource, 'participants');
});

test('a hub answer carries its body and template parameters as given', () => {
  const event = hubEvent({
    id: 'r1', action: 'answer', hubName: 'Hub', endpointType: 'FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT',
    templateParams: { requestId: 'r1' }, resource: 'participants', body: { partyList: [] },
    accepted: {
      headers: {
        'fspiop-source': 'payeefsp',
        'content-type': 'application/vnd.interoperability.participants+json;version=1.1',
        accept: 'application/vnd.interoperability.participants+json;version=2',
      },
      receivedAt: 9,
    },
  });
  assert.equal(invalidNotificationReason(event), null);
  assert.deepEqual([event.to, event.at], ['payeefsp', 9]);
  assert.equal(event.callback.version, '2.0', 'the version the requester accepts, when it does not accept the one it sent');
  assert.equal(callbackUrl('http://x/participants/{{requestId}}', event.callback).pathname, '/participants/r1');
});
