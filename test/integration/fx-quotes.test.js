// Fx quotes end to end through the real switch (FSPIOP v2.0 /fxQuotes): the quoting edge, the
// quoting handler and the notification handler as their own processes, real Kafka and
// MariaDB, DFSPs over real HTTP. A payer DFSP in USD asks an FXP onboarded in USD and EUR with
// the pair USD → EUR; the FXP answers with its terms. Signatures are placeholders, forwarded
// byte for byte (verification is off, as in quoting.test.js).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { onboardDfsp, setUpHub } from '../support/admin-api.js';
import { startSwitch } from '../support/switch.js';
import { fxQuoteHeaders, fxQuoteRequestBody, startFxQuoteDfsp } from '../support/fx-quote-dfsp.js';
import { unsignedFetch } from '../support/jws-keys.js';

let sw;
let quotingUrl;
let payer;
let fxp;
let other;
let reverse;

/** Onboards `dfsp` in each of `currencies` (an account set per currency) with the pairs it converts; onboarding registers its fx quote endpoint with the others. */
async function onboard(dfsp, currencies, pairs = []) {
  const { request } = sw.admin;
  const [first, ...more] = currencies;
  await onboardDfsp(request, { name: dfsp.name, currency: first, endpointBase: dfsp.url, fundsIn: '' });
  for (const currency of more) {
    assert.equal((await request('POST', '/participants', { name: dfsp.name, currency })).status, 201);
    const limits = await request('POST', `/participants/${dfsp.name}/initialPositionAndLimits`, { currency, limit: { type: 'NET_DEBIT_CAP', value: 1000 } });
    assert.equal(limits.status, 201, limits.text);
  }
  for (const [sourceCurrency, targetCurrency] of pairs) {
    assert.equal((await request('POST', `/participants/${dfsp.name}/currencyPairs`, { sourceCurrency, targetCurrency })).status, 201);
  }
}

before(async () => {
  sw = await startSwitch({ components: ['quoting', 'quoting-handler', 'notification'], env: { JWS_VERIFICATION: 'off' } });
  quotingUrl = sw.urlOf('quoting');
  await setUpHub(sw.admin.request, 'USD');
  await setUpHub(sw.admin.request, 'EUR');
  [payer, fxp, other, reverse] = await Promise.all(['payerfsp', 'fxp', 'otherfsp', 'reversefxp'].map((name) => startFxQuoteDfsp({ name, quotingUrl })));
  await onboard(payer, ['USD']);
  await onboard(fxp, ['USD', 'EUR'], [['USD', 'EUR']]);
  await onboard(other, ['USD']);
  await onboard(reverse, ['USD', 'EUR'], [['EUR', 'USD']]);
});

after(async () => {
  await Promise.all([payer, fxp, other, reverse].map((dfsp) => dfsp?.close()));
  await sw?.stop();
});

async function postFxQuote(body, { source = 'payerfsp', destination = body.conversionTerms.counterPartyFsp, raw = JSON.stringify(body), extra = {} } = {}) {
  const response = await unsignedFetch(`${quotingUrl}/fxQuotes`, { method: 'POST', headers: fxQuoteHeaders(source, destination, extra), body: raw });
  assert.equal(response.status, 202, await response.text());
}

const fxQuoteRow = async (id) => (await sw.admin.db('fx_quote').where({ conversion_request_id: id }))[0];
const putTo = (dfsp, id, suffix = '') => dfsp.waitFor((call) => call.method === 'PUT' && call.path === `/fxQuotes/${id}${suffix}`);
const errorTo = (dfsp, id) => putTo(dfsp, id, '/error');
const callbacksTo = (dfsp, id) => dfsp.received.filter((call) => call.path.startsWith(`/fxQuotes/${id}`));

/**
 * A later request whose only effect is a 3106 to the payer: the same conversion with another
 * amount. The edge keys every request about a conversion by its id and the notification
 * handler delivers one conversion's callbacks to one DFSP in order, so once this has arrived,
 * anything an earlier request made for the payer would already be there.
 */
async function markerToPayer(body) {
  const changed = { ...body, conversionTerms: { ...body.conversionTerms, sourceAmount: { amount: '99', currency: 'USD' } } };
  await postFxQuote(changed);
  return payer.waitFor((call) => call.method === 'PUT' && call.path === `/fxQuotes/${body.conversionRequestId}/error` && call.body.errorInformation.errorCode === '3106');
}

test('happy path: the FXP gets the payer\'s bytes and signature, the payer the FXP\'s, and the fx quote is stored', async () => {
  const body = fxQuoteRequestBody();
  const raw = JSON.stringify(body, null, 1);
  await postFxQuote(body, { raw });
  const forwarded = await fxp.waitFor((call) => call.method === 'POST' && call.path === '/fxQuotes' && call.body.conversionRequestId === body.conversionRequestId);
  assert.equal(forwarded.rawBody, raw, 'the payer\'s body bytes reach the FXP unchanged');
  assert.deepEqual([forwarded.headers['fspiop-source'], forwarded.headers['fspiop-destination'], forwarded.headers['fspiop-signature']],
    ['payerfsp', 'fxp', '{"signature":"payerfsp-signed","protectedHeader":"x"}']);
  assert.equal(forwarded.headers['content-type'], 'application/vnd.interoperability.fxQuotes+json;version=2.0');
  const answer = await putTo(payer, body.conversionRequestId);
  assert.equal(answer.rawBody, fxp.answers.get(body.conversionRequestId).rawBody, 'the FXP\'s body bytes reach the payer unchanged');
  assert.deepEqual([answer.headers['fspiop-source'], answer.headers['fspiop-destination'], answer.headers['fspiop-signature']],
    ['fxp', 'payerfsp', '{"signature":"fxp-signed","protectedHeader":"x"}']);
  assert.equal(answer.body.conversionTerms.targetAmount.amount, '92.5');
  const row = await fxQuoteRow(body.conversionRequestId);
  assert.deepEqual([row.state, row.initiating_fsp, row.counter_party_fsp, row.source_currency, row.target_currency], ['ANSWERED', 'payerfsp', 'fxp', 'USD', 'EUR']);
  assert.deepEqual([row.request_body, row.answer_body], [raw, answer.rawBody]);
});

test('an impostor answering is refused with 3100 and the payer hears nothing of it; the FXP\'s own answer still reaches the payer', async () => {
  const body = fxQuoteRequestBody();
  const id = body.conversionRequestId;
  fxp.setBehaviour(id, 'silent');
  await postFxQuote(body);
  await fxp.waitFor((call) => call.method === 'POST' && call.body?.conversionRequestId === id);
  const forged = JSON.stringify({ condition: 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA', conversionTerms: { ...body.conversionTerms, targetAmount: { amount: '1', currency: 'EUR' } } });
  const put = await unsignedFetch(`${quotingUrl}/fxQuotes/${id}`, { method: 'PUT', headers: fxQuoteHeaders('otherfsp', 'payerfsp', { accept: false }), body: forged });
  assert.equal(put.status, 200);
  const refusal = await errorTo(other, id);
  assert.equal(refusal.body.errorInformation.errorCode, '3100');
  assert.match(refusal.body.errorInformation.errorDescription, /was sent to fxp; otherfsp cannot answer it/);
  assert.equal(refusal.headers['fspiop-source'], 'Hub');
  assert.equal(refusal.headers['content-type'], 'application/vnd.interoperability.fxQuotes+json;version=2.0');
  const marker = await markerToPayer(body);
  assert.deepEqual(callbacksTo(payer, id), [marker], 'the payer heard nothing of the impostor\'s answer');
  assert.equal((await fxQuoteRow(id)).state, 'FORWARDED');
  const genuine = JSON.stringify({ condition: 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA', conversionTerms: { ...body.conversionTerms, targetAmount: { amount: '92.5', currency: 'EUR' } } });
  const answered = await unsignedFetch(`${quotingUrl}/fxQuotes/${id}`, { method: 'PUT', headers: fxQuoteHeaders('fxp', 'payerfsp', { accept: false }), body: genuine });
  assert.equal(answered.status, 200);
  assert.equal((await putTo(payer, id)).rawBody, genuine);
});

test('an FXP that does not convert the pair is refused with 3100 to the payer and never asked; an unknown FXP gets 3203', async () => {
  const body = fxQuoteRequestBody({ fxp: 'reversefxp' });
  await postFxQuote(body);
  const refusal = await errorTo(payer, body.conversionRequestId);
  assert.equal(refusal.body.errorInformation.errorCode, '3100');
  assert.match(refusal.body.errorInformation.errorDescription, /FXP reversefxp does not convert USD to EUR/);
  assert.equal(await fxQuoteRow(body.conversionRequestId), undefined);
  assert.deepEqual(reverse.received.filter((call) => call.body?.conversionRequestId === body.conversionRequestId), []);

  const ghost = fxQuoteRequestBody({ fxp: 'ghostfxp' });
  await postFxQuote(ghost);
  assert.equal((await errorTo(payer, ghost.conversionRequestId)).body.errorInformation.errorCode, '3203');
});

test('duplicates: ignored in flight, the stored answer once answered, 3106 when modified', async () => {
  const answered = fxQuoteRequestBody();
  const id = answered.conversionRequestId;
  await postFxQuote(answered);
  const first = await putTo(payer, id);
  await postFxQuote(answered);
  await payer.waitFor((call) => call.method === 'PUT' && call.path === `/fxQuotes/${id}` && call !== first);
  const [, again] = payer.callsTo('PUT', `/fxQuotes/${id}`);
  assert.deepEqual([again.rawBody, again.headers['fspiop-source'], again.headers['fspiop-signature']], [first.rawBody, 'fxp', first.headers['fspiop-signature']]);
  assert.equal(fxp.received.filter((call) => call.body?.conversionRequestId === id).length, 1, 'the FXP is not asked again');
  const modified = await markerToPayer(answered);
  assert.equal(modified.headers['fspiop-source'], 'Hub');

  const silent = fxQuoteRequestBody();
  fxp.setBehaviour(silent.conversionRequestId, 'silent');
  await postFxQuote(silent);
  await fxp.waitFor((call) => call.method === 'POST' && call.body?.conversionRequestId === silent.conversionRequestId);
  await postFxQuote(silent);
  const marker = await markerToPayer(silent);
  assert.deepEqual(callbacksTo(payer, silent.conversionRequestId), [marker], 'a resend in flight is ignored');
  assert.equal(fxp.received.filter((call) => call.body?.conversionRequestId === silent.conversionRequestId).length, 1);
});

test('the FXP\'s error reaches the payer as the FXP sent it; GET gives the payer the stored answer and anyone else 3205', async () => {
  const rejected = fxQuoteRequestBody();
  fxp.setBehaviour(rejected.conversionRequestId, 'reject');
  await postFxQuote(rejected);
  const rejection = await errorTo(payer, rejected.conversionRequestId);
  assert.deepEqual([rejection.rawBody, rejection.headers['fspiop-source']], [fxp.answers.get(rejected.conversionRequestId).rawBody, 'fxp']);
  assert.deepEqual([(await fxQuoteRow(rejected.conversionRequestId)).state, (await fxQuoteRow(rejected.conversionRequestId)).answer_error_code], ['FAILED', '5100']);

  const body = fxQuoteRequestBody();
  await postFxQuote(body);
  const first = await putTo(payer, body.conversionRequestId);
  const get = (id, source) => unsignedFetch(`${quotingUrl}/fxQuotes/${id}`, { headers: fxQuoteHeaders(source, 'fxp', { 'fspiop-signature': undefined }) });
  assert.equal((await get(body.conversionRequestId, 'payerfsp')).status, 202);
  await payer.waitFor((call) => call.method === 'PUT' && call.path === `/fxQuotes/${body.conversionRequestId}` && call !== first);
  const [, again] = payer.callsTo('PUT', `/fxQuotes/${body.conversionRequestId}`);
  assert.equal(again.rawBody, first.rawBody);
  assert.equal((await get(body.conversionRequestId, 'otherfsp')).status, 202);
  assert.equal((await errorTo(other, body.conversionRequestId)).body.errorInformation.errorCode, '3205');
  const unknown = randomUUID();
  assert.equal((await get(unknown, 'payerfsp')).status, 202);
  assert.equal((await errorTo(payer, unknown)).body.errorInformation.errorCode, '3205');
});

test('/fxQuotes speaks v2.0 only: v1.1 is 406 with 3001 naming 2.0; a body breaking the v2.0 schema is 400', async () => {
  const body = JSON.stringify(fxQuoteRequestBody());
  const v1 = await unsignedFetch(`${quotingUrl}/fxQuotes`, {
    method: 'POST', body, headers: fxQuoteHeaders('payerfsp', 'fxp', { 'content-type': 'application/vnd.interoperability.fxQuotes+json;version=1.1' }),
  });
  assert.equal(v1.status, 406);
  const { errorInformation } = await v1.json();
  assert.equal(errorInformation.errorCode, '3001');
  assert.deepEqual(errorInformation.extensionList.extension, [{ key: '2', value: '0' }]);
  const extra = JSON.stringify({ ...fxQuoteRequestBody(), surplus: true });
  const strict = await unsignedFetch(`${quotingUrl}/fxQuotes`, { method: 'POST', body: extra, headers: fxQuoteHeaders('payerfsp', 'fxp') });
  assert.equal(strict.status, 400);
  assert.match((await strict.json()).errorInformation.errorCode, /^310\d$/);
});
