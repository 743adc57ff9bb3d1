// FSPIOP signatures against the running switch with JWS_VERIFICATION=required: every way a
// message can differ from what its sender's registered key signed is refused with 3105 and
// produces nothing, and a DFSP rotates its key through the admin API without a restart.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { onboardDfsp, setUpHub } from '../support/admin-api.js';
import { startSwitch } from '../support/switch.js';
import { fspiopHeaders, quoteIlp, startTestDfsp } from '../support/test-dfsp.js';
import { quoteHeaders, quoteRequestBody } from '../support/quote-dfsp.js';
import { signedHeaders } from '../../scripts/lib/fspiop-headers.js';
import { unsignedFetch } from '../support/jws-keys.js';

const KEY_CACHE_TTL_MS = 300;
const keyPair = (type = 'rsa') => generateKeyPairSync(type, {
  ...(type === 'rsa' ? { modulusLength: 2048 } : { namedCurve: 'P-256' }),
  publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
});
const payerKey = keyPair();
const payerNextKey = keyPair('ec');
const payeeKey = keyPair();

let sw;
let payer;
let payee;

before(async () => {
  sw = await startSwitch({
    components: ['api-adapter', 'prepare', 'position', 'notification', 'quoting'],
    env: { JWS_VERIFICATION: 'required', JWS_KEY_CACHE_TTL_MS: String(KEY_CACHE_TTL_MS) },
  });
  await setUpHub(sw.admin.request);
  payer = await startTestDfsp({ name: 'payerfsp', switchUrl: sw.apiUrl });
  payee = await startTestDfsp({ name: 'payeefsp', switchUrl: sw.apiUrl });
  for (const dfsp of [payer, payee]) await onboardDfsp(sw.admin.request, { name: dfsp.name, endpointBase: dfsp.url });
  await registerKeys('payerfsp', [payerKey.publicKey]);
  await registerKeys('payeefsp', [payeeKey.publicKey]);
});

after(async () => {
  await Promise.all([payer, payee].map((dfsp) => dfsp?.close()));
  await sw?.stop();
});

async function registerKeys(name, keys) {
  const result = await sw.admin.request('PUT', `/participants/${name}/jwsKeys`, { keys });
  assert.equal(result.status, 200, result.text);
  return result;
}

function transferBody() {
  const transferId = randomUUID();
  const expiration = new Date(Date.now() + 30_000).toISOString();
  const ilp = quoteIlp({ secret: payee.secret, transferId, amount: '10', currency: 'USD', payeeAddress: 'g.payeefsp.msisdn.123', expiration });
  return { transferId, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { amount: '10', currency: 'USD' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration };
}

/** Sends `raw` to `path`; `sign` says what the signature covers, defaulting to exactly this request. */
async function send(path, raw, { method = 'POST', source = 'payerfsp', key = payerKey.privateKey, sign = {}, headers: changed = {} } = {}) {
  const base = fspiopHeaders(source, 'payeefsp');
  const headers = key ? await signedHeaders(base, { privateKey: key, method, uri: path, body: raw, ...sign }) : base;
  const response = await unsignedFetch(`${sw.apiUrl}${path}`, { method, headers: { ...headers, ...changed }, body: raw });
  return { status: response.status, body: await response.json().catch(() => null) };
}

const transferRow = async (transferId) => (await sw.admin.db('transfer').where({ transfer_id: transferId }))[0];

async function waitForTransfer(transferId, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await transferRow(transferId)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`transfer ${transferId} was never stored`);
}

function assertInvalidSignature(result, pattern) {
  assert.equal(result.status, 400, JSON.stringify(result.body));
  assert.equal(result.body.errorInformation.errorCode, '3105');
  if (pattern) assert.match(result.body.errorInformation.errorDescription, pattern);
}

test('a prepare signed with the payer\'s registered key is accepted and stored', async () => {
  const body = transferBody();
  const result = await send('/transfers', JSON.stringify(body));
  assert.equal(result.status, 202, JSON.stringify(result.body));
  await waitForTransfer(body.transferId);
});

test('unsigned, wrongly signed, tampered, header-mismatched and replayed requests are refused with 3105 and change nothing', async () => {
  const refused = [];
  const attempt = async (pattern, options = {}, tamper = (raw) => raw) => {
    const body = transferBody();
    refused.push(body.transferId);
    const raw = JSON.stringify(body);
    assertInvalidSignature(await send('/transfers', tamper(raw), { ...options, sign: { body: raw, ...options.sign } }), pattern);
  };
  await attempt(/missing/, { key: null });
  await attempt(/does not verify/, { key: payeeKey.privateKey });
  await attempt(/does not verify/, {}, (raw) => raw.replace('"amount":"10"', '"amount":"10000"'));
  await attempt(/does not verify/, {}, (raw) => `${raw}\n`);
  await attempt(/FSPIOP-Destination/, { headers: { 'fspiop-destination': 'otherfsp' } });
  await attempt(/FSPIOP-URI/, { sign: { uri: '/transfers/0195b3c2-aaaa-7bbb-8ccc-000000000001' } });
  await attempt(/Date/, { headers: { date: new Date(Date.now() + 60_000).toUTCString() } });
  // A marker accepted after the refusals: once it is stored, anything they had produced would be too.
  const marker = transferBody();
  assert.equal((await send('/transfers', JSON.stringify(marker))).status, 202);
  await waitForTransfer(marker.transferId);
  for (const transferId of refused) assert.equal(await transferRow(transferId), undefined, `${transferId} was stored`);
});

test('a fulfil signed for PUT /transfers/{ID} and replayed to …/error is refused', async () => {
  const transferId = randomUUID();
  const raw = JSON.stringify({ errorInformation: { errorCode: '5104', errorDescription: 'Payee rejected' } });
  const result = await send(`/transfers/${transferId}/error`, raw, {
    method: 'PUT', source: 'payeefsp', key: payeeKey.privateKey, sign: { uri: `/transfers/${transferId}` },
  });
  assertInvalidSignature(result, /FSPIOP-URI/);
});

test('a request signed with the payer\'s key but claiming to come from the payee is refused', async () => {
  const result = await send('/transfers', JSON.stringify(transferBody()), { source: 'payeefsp', key: payerKey.privateKey });
  assertInvalidSignature(result, /does not verify/);
});

test('the quoting edge refuses an unsigned quote and accepts a signed one', async () => {
  const quotingUrl = sw.urlOf('quoting');
  const raw = JSON.stringify(quoteRequestBody());
  const headers = quoteHeaders('payerfsp', 'payeefsp');
  const unsigned = await unsignedFetch(`${quotingUrl}/quotes`, { method: 'POST', headers, body: raw });
  assert.equal(unsigned.status, 400);
  assert.equal((await unsigned.json()).errorInformation.errorCode, '3105');
  const signed = await signedHeaders(headers, { privateKey: payerKey.privateKey, method: 'POST', uri: '/quotes', body: raw });
  const accepted = await unsignedFetch(`${quotingUrl}/quotes`, { method: 'POST', headers: signed, body: raw });
  assert.equal(accepted.status, 202, await accepted.text());
});

test('key rotation without a restart: a second key works beside the first; the first, once removed, is refused within the cache bound', async () => {
  const listed = await registerKeys('payerfsp', [payerKey.publicKey, payerNextKey.publicKey]);
  assert.equal(JSON.parse(listed.text).length, 2);
  await new Promise((resolve) => setTimeout(resolve, KEY_CACHE_TTL_MS + 50));
  assert.equal((await send('/transfers', JSON.stringify(transferBody()), { key: payerNextKey.privateKey })).status, 202);
  assert.equal((await send('/transfers', JSON.stringify(transferBody()))).status, 202, 'the old key still works during the rotation');
  await registerKeys('payerfsp', [payerNextKey.publicKey]);
  await new Promise((resolve) => setTimeout(resolve, KEY_CACHE_TTL_MS + 50));
  assertInvalidSignature(await send('/transfers', JSON.stringify(transferBody())), /does not verify/);
  assert.equal((await send('/transfers', JSON.stringify(transferBody()), { key: payerNextKey.privateKey })).status, 202);
});

test('the admin API refuses a key no accepted algorithm can use', async () => {
  const small = generateKeyPairSync('rsa', { modulusLength: 1024, publicKeyEncoding: { type: 'spki', format: 'pem' } }).publicKey;
  const result = await sw.admin.request('PUT', '/participants/payerfsp/jwsKeys', { keys: [small] });
  assert.equal(result.status, 400, result.text);
});
