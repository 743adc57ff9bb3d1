// The pure part of a callback: URL rendering, headers of forwards and of hub calls, body bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildCallbackHeaders, callbackBody, callbackUrl, invalidNotificationReason, renderTemplate, TemplateError,
} from '../../platform/delivery/callback-request.js';
import { interopContentType } from '../../platform/fspiop/versions.js';

const NOW = new Date('2026-03-04T05:06:07.000Z');
const TRANSFER_ID = 'b51ec534-ee48-4575-b6a9-ead2955b8069';

function notification(overrides = {}) {
  return {
    id: TRANSFER_ID, type: 'notification', action: 'commit', from: 'payeefsp', to: 'payerfsp',
    callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', templateParams: { transferId: TRANSFER_ID }, method: 'PUT', resource: 'transfers' },
    headers: {}, body: { transferState: 'COMMITTED' }, at: NOW.getTime() - 10,
    ...overrides,
  };
}

const DFSP_HEADERS = Object.freeze({
  'content-type': 'application/vnd.interoperability.transfers+json;version=1.0',
  accept: 'application/vnd.interoperability.transfers+json;version=1',
  date: 'Tue, 03 Mar 2026 10:00:00 GMT',
  'fspiop-source': 'payeefsp',
  'fspiop-destination': 'payerfsp',
  'fspiop-signature': '{"signature":"abc","protectedHeader":"eyJ"}',
  traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  'content-length': '999',
  host: 'switch.example',
});

test('templates are rendered with URL-encoded values', () => {
  const template = 'http://dfsp:4000/parties/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}';
  assert.equal(renderTemplate(template, { partyIdType: 'MSISDN', partyIdentifier: '+1 555/0100', partySubIdOrType: 'a&b' }),
    'http://dfsp:4000/parties/MSISDN/%2B1%20555%2F0100/a%26b');
  assert.equal(renderTemplate('http://x/{{ transferId }}/{{ID}}/{{quoteId}}/{{requestId}}',
    { transferId: 't', ID: 'i', quoteId: 'q', requestId: 'r' }), 'http://x/t/i/q/r');
  assert.equal(renderTemplate('http://x/transfers', {}), 'http://x/transfers', 'a template without placeholders is a fixed URL');
});

test('a missing or unknown placeholder is a TemplateError, never a literal {{…}} in a URL', () => {
  assert.throws(() => renderTemplate('http://x/{{transferId}}', {}), TemplateError);
  assert.throws(() => renderTemplate('http://x/{{transferId}}', { transferId: '' }), TemplateError);
  assert.throws(() => renderTemplate('http://x/{{fspId}}', { fspId: 'a' }), TemplateError);
});

test('a base URL endpoint gets callback.path appended, with exactly one slash between', () => {
  const quote = { templateParams: {}, path: '/quotes/7a1c' };
  assert.equal(callbackUrl('http://dfsp:4000/api/', quote).href, 'http://dfsp:4000/api/quotes/7a1c');
  assert.equal(callbackUrl('http://dfsp:4000/api', { ...quote, path: 'quotes/7a1c/error' }).href, 'http://dfsp:4000/api/quotes/7a1c/error');
  assert.equal(callbackUrl('http://dfsp:4000/transfers/{{transferId}}', { templateParams: { transferId: 'x' } }).pathname, '/transfers/x');
});

test('a forward keeps the DFSP headers and signature, drops hop headers, and adds FSPIOP-URI and -HTTP-Method', () => {
  const event = notification({ headers: DFSP_HEADERS, rawBody: '{"transferState":"COMMITTED"}' });
  const url = callbackUrl('http://payer:4000/cb/transfers/{{transferId}}', event.callback);
  const headers = buildCallbackHeaders({ event, url, hubName: 'Hub', now: NOW });
  const expected = { ...DFSP_HEADERS, 'fspiop-uri': `/cb/transfers/${TRANSFER_ID}`, 'fspiop-http-method': 'PUT' };
  for (const name of ['content-length', 'host', 'accept']) delete expected[name];
  assert.deepEqual(headers, expected);
});

test('a forward keeps FSPIOP-URI and -HTTP-Method the DFSP set, and its Accept on POST', () => {
  const event = notification({
    action: 'prepare', from: 'payerfsp', to: 'payeefsp',
    headers: { ...DFSP_HEADERS, 'fspiop-uri': '/transfers', 'fspiop-http-method': 'POST', 'fspiop-destination': undefined },
    callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', templateParams: { transferId: TRANSFER_ID }, method: 'POST', resource: 'transfers' },
  });
  const headers = buildCallbackHeaders({ event, url: new URL('http://payee/x/transfers'), hubName: 'Hub', now: NOW });
  assert.equal(headers['fspiop-uri'], '/transfers');
  assert.equal(headers.accept, DFSP_HEADERS.accept);
  assert.equal(headers['fspiop-destination'], 'payeefsp', 'an absent destination is the receiving DFSP');
  assert.equal(headers.date, DFSP_HEADERS.date, 'the DFSP date is kept: its signature covers it');
  assert.equal(headers['fspiop-signature'], undefined, 'a signature that bound no destination would not verify with one: it stops at the switch');
});

test('a hub-originated call comes from the hub, unsigned, with a fresh date and the versioned content type', () => {
  const event = notification({ action: 'error', callback: { ...notification().callback, endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR' } });
  const url = new URL(`http://payer:4000/transfers/${TRANSFER_ID}/error`);
  assert.deepEqual(buildCallbackHeaders({ event, url, hubName: 'Hub', now: NOW }), {
    'content-type': 'application/vnd.interoperability.transfers+json;version=1.1',
    date: 'Wed, 04 Mar 2026 05:06:07 GMT',
    'fspiop-source': 'Hub',
    'fspiop-destination': 'payerfsp',
    'fspiop-uri': `/transfers/${TRANSFER_ID}/error`,
    'fspiop-http-method': 'PUT',
  });
});

test('a hub PATCH has no Accept; a hub POST asks for the resource version 1', () => {
  const patch = notification({ callback: { ...notification().callback, method: 'PATCH' } });
  assert.equal(buildCallbackHeaders({ event: patch, url: new URL('http://p/t'), hubName: 'Hub', now: NOW }).accept, undefined);
  const post = notification({ callback: { ...notification().callback, method: 'POST', resource: 'quotes' } });
  const headers = buildCallbackHeaders({ event: post, url: new URL('http://p/quotes'), hubName: 'Hub', now: NOW });
  assert.equal(headers.accept, 'application/vnd.interoperability.quotes+json;version=1');
  assert.equal(headers['content-type'], interopContentType('quotes'));
});

test('the body is the raw text byte for byte when present, else the JSON of body', () => {
  const raw = '{ "transferState" :"COMMITTED",\n  "note":"é"}';
  assert.deepEqual(callbackBody(notification({ rawBody: raw })), Buffer.from(raw, 'utf8'));
  assert.equal(callbackBody(notification()).toString(), '{"transferState":"COMMITTED"}');
  assert.equal(callbackBody(notification({ body: undefined })).length, 0);
});

test('events a producer got wrong are recognised as undeliverable', () => {
  assert.equal(invalidNotificationReason(notification()), null);
  assert.match(invalidNotificationReason(notification({ type: 'transfer' })), /not notification/);
  assert.match(invalidNotificationReason(notification({ to: undefined })), /to is missing/);
  assert.match(invalidNotificationReason(notification({ callback: undefined })), /callback is missing/);
  assert.match(invalidNotificationReason(notification({ callback: { ...notification().callback, method: 'DELETE' } })), /method DELETE/);
  assert.match(invalidNotificationReason(notification({ callback: { ...notification().callback, resource: '' } })), /resource/);
});
