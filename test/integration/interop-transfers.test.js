// Transfers as Mojaloop's acceptance collections see them (issue #13, items 6 to 11): a
// RESERVED fulfil sent as API version 1.0, the PATCH after an invalid RESERVED fulfil, a
// malformed completedTimestamp, a prepare that expires soon, on-us transfers, and the
// signature on every callback. Real switch processes, Kafka, MariaDB and HTTP DFSPs that
// verify every signed call they receive. On-us transfers are allowed in this file's switch
// (TRANSFERS_ON_US_ALLOWED=true); transfers.test.js covers the default, which refuses them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTransferSwitch } from '../support/transfer-switch.js';
import { fspiopHeaders, fulfilmentFor, quoteIlp } from '../support/test-dfsp.js';
import { signedFetch } from '../support/jws-keys.js';

let sw;
let payer;
let payee;
let stop;

before(async () => {
  ({ sw, dfsps: [payer, payee], stop } = await startTransferSwitch({ dfsps: [{ name: 'payerfsp', netDebitCap: '10000', fundsIn: '50000' }, { name: 'payeefsp', netDebitCap: '10000', fundsIn: '50000' }], env: { TRANSFERS_ON_US_ALLOWED: 'true' } }));
});

after(() => stop?.());

const VERSION_1_0 = 'application/vnd.interoperability.transfers+json;version=1.0';

/** A prepare body from `from` to `to`, the condition from the payee's secret; the payee answers as told. */
function transferBody({ amount = '10', from = payer, to = payee, expiresInMs = 30000, payeeBehaviour = 'late' } = {}) {
  const transferId = randomUUID();
  to.setBehaviour(transferId, payeeBehaviour);
  const expiration = new Date(Date.now() + expiresInMs).toISOString();
  const ilp = quoteIlp({ secret: to.secret, transferId, amount, currency: 'USD', payeeAddress: `g.${to.name}.msisdn.123`, expiration });
  return { transferId, payerFsp: from.name, payeeFsp: to.name, amount: { amount, currency: 'USD' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration };
}

async function post(body) {
  const response = await signedFetch(`${sw.apiUrl}/transfers`, { method: 'POST', headers: fspiopHeaders(body.payerFsp, body.payeeFsp), body: JSON.stringify(body) });
  assert.equal(response.status, 202, await response.text());
}

/** The payee's PUT /transfers/{ID}; `contentType` overrides the version 1.1 media type. */
function fulfil(body, completion, { contentType } = {}) {
  const headers = { ...fspiopHeaders(body.payeeFsp, body.payerFsp, { accept: false }), ...(contentType ? { 'content-type': contentType } : {}) };
  return signedFetch(`${sw.apiUrl}/transfers/${body.transferId}`, { method: 'PUT', headers, body: JSON.stringify(completion) });
}

const getTransfer = (body, source) => signedFetch(`${sw.apiUrl}/transfers/${body.transferId}`, { headers: fspiopHeaders(source, source === body.payerFsp ? body.payeeFsp : body.payerFsp) });

async function position(name) {
  const [account] = (await sw.admin.request('GET', `/participants/${name}/accounts`)).body.filter((row) => row.ledgerAccountType === 'POSITION');
  return account.value;
}

async function stateOf(transferId) {
  const [[row]] = await sw.admin.db.raw('SELECT state FROM transfer WHERE transfer_id = ?', [transferId]);
  return row?.state;
}

const callTo = (dfsp, transferId, method, suffix = '', timeoutMs) =>
  dfsp.waitFor((call) => call.method === method && call.path === `/transfers/${transferId}${suffix}`, timeoutMs);
const fromHub = (dfsp, transferId, method, suffix = '') =>
  dfsp.waitFor((call) => call.method === method && call.path === `/transfers/${transferId}${suffix}` && call.headers['fspiop-source'] === 'Hub');
const prepared = (body) => payee.waitFor((call) => call.method === 'POST' && call.body?.transferId === body.transferId);

test('a RESERVED fulfil sent as version 1.0 does not commit: GET shows RESERVED, and the transfer ends ABORTED at its expiry', async () => {
  const before = await position('payerfsp');
  const body = transferBody({ expiresInMs: 4000 });
  await post(body);
  const prepare = await prepared(body);
  const completion = { transferState: 'RESERVED', completedTimestamp: new Date().toISOString(), fulfilment: fulfilmentFor(payee.secret, prepare.body.ilpPacket) };
  assert.equal((await fulfil(body, completion, { contentType: VERSION_1_0 })).status, 200);
  // The GET follows the fulfil on the same partition (both keyed by the transfer), so its
  // answer shows whatever the fulfil did.
  assert.equal((await getTransfer(body, 'payeefsp')).status, 202);
  const answer = await fromHub(payee, body.transferId, 'PUT');
  assert.equal(answer.body.transferState, 'RESERVED', JSON.stringify(answer.body));
  assert.equal(await stateOf(body.transferId), 'RESERVED');
  const expiredToPayer = await callTo(payer, body.transferId, 'PUT', '/error');
  assert.equal(expiredToPayer.body.errorInformation.errorCode, '3303');
  assert.equal((await callTo(payee, body.transferId, 'PUT', '/error')).body.errorInformation.errorCode, '3303');
  assert.equal(await stateOf(body.transferId), 'EXPIRED_RESERVED');
  assert.equal((await getTransfer(body, 'payerfsp')).status, 202);
  assert.equal((await fromHub(payer, body.transferId, 'PUT')).body.transferState, 'ABORTED');
  assert.deepEqual(payee.received.filter((call) => call.method === 'PATCH' && call.path === `/transfers/${body.transferId}`), [], 'no PATCH in version 1.0');
  assert.equal(await position('payerfsp'), before, 'the reservation was released');
});

test('a RESERVED fulfil with a wrong fulfilment: the payer gets the error, the payee the error and a PATCH ABORTED', async () => {
  const before = await position('payerfsp');
  const body = transferBody();
  await post(body);
  await prepared(body);
  const completion = { transferState: 'RESERVED', completedTimestamp: new Date().toISOString(), fulfilment: 'z'.repeat(43) };
  assert.equal((await fulfil(body, completion)).status, 200);
  assert.match((await callTo(payer, body.transferId, 'PUT', '/error')).body.errorInformation.errorDescription, /invalid fulfilment/);
  assert.equal((await callTo(payee, body.transferId, 'PUT', '/error')).body.errorInformation.errorCode, '3100');
  const patch = await fromHub(payee, body.transferId, 'PATCH');
  assert.equal(patch.body.transferState, 'ABORTED');
  assert.ok(!Number.isNaN(Date.parse(patch.body.completedTimestamp)), patch.body.completedTimestamp);
  assert.equal(await position('payerfsp'), before);
});

test('a malformed completedTimestamp in the payee\'s PUT is refused at once with 400 and changes nothing', async () => {
  const body = transferBody();
  await post(body);
  const prepare = await prepared(body);
  const fulfilment = fulfilmentFor(payee.secret, prepare.body.ilpPacket);
  for (const completedTimestamp of ['yesterday', '2026-02-30T10:00:00.000Z', '2026-11-22 10:00:00']) {
    const response = await fulfil(body, { transferState: 'COMMITTED', completedTimestamp, fulfilment });
    const answer = await response.json();
    assert.equal(response.status, 400, `${completedTimestamp}: ${JSON.stringify(answer)}`);
    assert.ok(['3100', '3101'].includes(answer.errorInformation.errorCode), JSON.stringify(answer));
  }
  assert.equal(await stateOf(body.transferId), 'RESERVED');
  assert.equal((await fulfil(body, { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString(), fulfilment })).status, 200);
  assert.equal((await callTo(payer, body.transferId, 'PUT')).body.transferState, 'COMMITTED');
});

test('a prepare that expires 2 s after it was sent is reserved and forwarded; at expiry payer and payee get 3303', async () => {
  const body = transferBody({ expiresInMs: 2000 });
  await post(body);
  await prepared(body);
  assert.equal((await callTo(payer, body.transferId, 'PUT', '/error')).body.errorInformation.errorCode, '3303');
  assert.equal((await callTo(payee, body.transferId, 'PUT', '/error')).body.errorInformation.errorCode, '3303');
});

test('a prepare valid when the edge accepted it is not refused as invalid because it waited for the prepare handler', async () => {
  await sw.kill('prepare');
  const body = transferBody({ expiresInMs: 1500 });
  await post(body);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await sw.start('prepare');
  const error = await callTo(payer, body.transferId, 'PUT', '/error', 30000);
  assert.equal(error.body.errorInformation.errorCode, '3303', error.body.errorInformation.errorDescription);
  assert.equal(await stateOf(body.transferId), 'EXPIRED_PREPARED');
});

test('on-us: payer FSP = payee FSP is reserved, forwarded to that DFSP, committed, and its position nets to zero', async () => {
  const before = await position('payerfsp');
  const body = transferBody({ amount: '25.5', to: payer, payeeBehaviour: 'fulfil' });
  await post(body);
  const forwarded = await payer.waitFor((call) => call.method === 'POST' && call.body?.transferId === body.transferId);
  assert.equal(forwarded.headers['fspiop-destination'], 'payerfsp');
  assert.equal((await callTo(payer, body.transferId, 'PUT')).body.transferState, 'COMMITTED');
  assert.equal(await stateOf(body.transferId), 'COMMITTED');
  assert.equal(await position('payerfsp'), before);
  const journal = await sw.admin.db('position_change').where({ transfer_id: body.transferId }).orderBy('id').select('reason', 'change');
  assert.deepEqual(journal.map((entry) => [entry.reason, entry.change]), [['PREPARE', '25.5000'], ['COMMIT', '-25.5000']]);
});

// Runs last (node:test keeps the file's order): every callback of the transfers above,
// forwards and the hub's own (GET answers, errors, PATCH) alike, is signed by its sender.
test('every callback carries FSPIOP-Signature and verifies with its sender\'s key, the hub\'s included', async () => {
  // One more life of a transfer with every kind of hub callback: a PATCH after a RESERVED
  // fulfil that commits, a GET answer and a hub error (a changed resend, 3106).
  const body = transferBody({ payeeBehaviour: 'reserve' });
  await post(body);
  await fromHub(payee, body.transferId, 'PATCH');
  const committed = await fromHub(payer, body.transferId, 'PUT');
  await getTransfer(body, 'payerfsp');
  const answer = await payer.waitFor((call) => call !== committed && call.method === 'PUT' && call.path === `/transfers/${body.transferId}` && call.headers['fspiop-source'] === 'Hub');
  assert.equal(answer.body.transferState, 'COMMITTED');
  await post({ ...body, amount: { amount: '11', currency: 'USD' } });
  assert.equal((await callTo(payer, body.transferId, 'PUT', '/error')).body.errorInformation.errorCode, '3106');

  const calls = [payer, payee].flatMap((dfsp) => dfsp.received.map((call) => ({ ...call, to: dfsp.name })));
  const hubCalls = calls.filter((call) => call.headers['fspiop-source'] === 'Hub');
  const kinds = new Set(hubCalls.map((call) => `${call.method} ${call.path.endsWith('/error') ? 'error' : 'state'}`));
  assert.deepEqual([...kinds].sort(), ['PATCH state', 'PUT error', 'PUT state'], 'the hub sent errors, state answers and PATCHes');
  for (const call of calls) {
    assert.ok(call.headers['fspiop-signature'], `${call.method} ${call.path} to ${call.to} from ${call.headers['fspiop-source']} has no FSPIOP-Signature`);
    assert.equal(call.signatureProblem, null, `${call.method} ${call.path} to ${call.to}`);
  }
});
