// Transfers end to end through the real switch: the api-adapter, every handler as its own
// process, real Kafka and MariaDB, and two test DFSPs over real HTTP that derive ILP
// fulfilments from their secrets. Each test chooses how the payee answers its own transfers
// (transferBody's payeeBehaviour), so no test depends on what an earlier one left behind.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTransferSwitch } from '../support/transfer-switch.js';
import { fspiopHeaders, fulfilmentFor, quoteIlp } from '../support/test-dfsp.js';
import { signedFetch } from '../support/jws-keys.js';

let sw;
let payer;
let payee;
let outsider;
let stop;

before(async () => {
  ({ sw, dfsps: [payer, payee, outsider], stop } = await startTransferSwitch({ dfsps: [
    { name: 'payerfsp', netDebitCap: '1000', fundsIn: '5000' }, { name: 'payeefsp', netDebitCap: '1000', fundsIn: '5000' },
    { name: 'otherfsp', netDebitCap: '1000', fundsIn: '300' },
  ] }));
});

after(() => stop?.());

/** A prepare body; `payeeBehaviour`, when given, is how the payee will answer this transfer. */
function transferBody({ amount = '100', from = 'payerfsp', to = 'payeefsp', expiresInMs = 30000, secret = payee.secret, payeeBehaviour } = {}) {
  const transferId = randomUUID();
  if (payeeBehaviour) payee.setBehaviour(transferId, payeeBehaviour);
  const expiration = new Date(Date.now() + expiresInMs).toISOString();
  const ilp = quoteIlp({ secret, transferId, amount, currency: 'USD', payeeAddress: `g.${to}.msisdn.123`, expiration });
  return { transferId, payerFsp: from, payeeFsp: to, amount: { amount, currency: 'USD' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration };
}

async function post(body, { source = body.payerFsp, raw } = {}) {
  const response = await signedFetch(`${sw.apiUrl}/transfers`, { method: 'POST', headers: fspiopHeaders(source, body.payeeFsp), body: raw ?? JSON.stringify(body) });
  assert.equal(response.status, 202, await response.text());
}

async function position(name) {
  const [account] = (await sw.admin.request('GET', `/participants/${name}/accounts`)).body.filter((row) => row.ledgerAccountType === 'POSITION');
  return account.value;
}

const callbackFor = (dfsp, transferId, method, suffix = '') =>
  dfsp.waitFor((call) => call.method === method && call.path === `/transfers/${transferId}${suffix}`);

test('happy path: payee gets the payer\'s bytes, payer gets the fulfilment, positions move as central-ledger moves them', async () => {
  const body = transferBody({ amount: '123.45', payeeBehaviour: 'fulfil' });
  const raw = JSON.stringify(body, null, 1);
  await post(body, { raw });
  const forwarded = await payee.waitFor((call) => call.method === 'POST' && call.body?.transferId === body.transferId);
  assert.equal(forwarded.rawBody, raw, 'the payer\'s body bytes reach the payee unchanged');
  assert.equal(forwarded.headers['fspiop-source'], 'payerfsp');
  assert.equal(forwarded.headers['fspiop-destination'], 'payeefsp');
  const committed = await callbackFor(payer, body.transferId, 'PUT');
  assert.equal(committed.body.transferState, 'COMMITTED');
  assert.equal(committed.headers['fspiop-source'], 'payeefsp', 'the payee\'s fulfil is forwarded as the payee sent it');
  assert.equal(await position('payerfsp'), 123.45);
  assert.equal(await position('payeefsp'), -123.45);
  const [[row]] = await sw.admin.db.raw('SELECT state, fulfilment FROM transfer WHERE transfer_id = ?', [body.transferId]);
  assert.deepEqual([row.state, row.fulfilment], ['COMMITTED', committed.body.fulfilment]);
  const journal = await sw.admin.db('position_change').where({ transfer_id: body.transferId }).orderBy('id').select('reason', 'change');
  assert.deepEqual(journal.map((entry) => [entry.reason, entry.change]), [['PREPARE', '123.4500'], ['COMMIT', '-123.4500']]);
});

test('a duplicate prepare with the same body gets the final state; with a different body 3106', async () => {
  const body = transferBody();
  await post(body);
  await callbackFor(payer, body.transferId, 'PUT');
  const before = await position('payerfsp');
  await post(body);
  const resent = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/transfers/${body.transferId}` && call.headers['fspiop-source'] === 'Hub');
  assert.equal(resent.body.transferState, 'COMMITTED');
  await post({ ...body, amount: { amount: '99', currency: 'USD' } });
  const modified = await callbackFor(payer, body.transferId, 'PUT', '/error');
  assert.equal(modified.body.errorInformation.errorCode, '3106');
  assert.equal(await position('payerfsp'), before, 'duplicates move nothing');
});

test('validation failures come back to the payer as 3100 with the reasons', async () => {
  const self = transferBody({ to: 'payerfsp' });
  await post(self);
  const error = await callbackFor(payer, self.transferId, 'PUT', '/error');
  assert.equal(error.body.errorInformation.errorCode, '3100');
  assert.match(error.body.errorInformation.errorDescription, /same/);
  assert.equal(error.headers['fspiop-source'], 'Hub');
});

test('net debit cap 4200 and liquidity 4001 refuse before any position moves', async () => {
  const before = await position('payerfsp');
  const overCap = transferBody({ amount: '1000' });
  await post(overCap);
  assert.equal((await callbackFor(payer, overCap.transferId, 'PUT', '/error')).body.errorInformation.errorCode, '4200');
  const poor = transferBody({ from: 'otherfsp', amount: '301' });
  await post(poor, { source: 'otherfsp' });
  assert.equal((await callbackFor(outsider, poor.transferId, 'PUT', '/error')).body.errorInformation.errorCode, '4001');
  assert.equal(await position('payerfsp'), before);
  assert.equal(await position('otherfsp'), 0);
});

test('a wrong fulfilment aborts and releases; a payee rejection reaches the payer as sent', async () => {
  const before = await position('payerfsp');
  const wrong = transferBody({ payeeBehaviour: 'wrong-fulfilment' });
  await post(wrong);
  const aborted = await callbackFor(payer, wrong.transferId, 'PUT', '/error');
  assert.match(aborted.body.errorInformation.errorDescription, /invalid fulfilment/);
  await callbackFor(payee, wrong.transferId, 'PUT', '/error');
  const rejected = transferBody({ payeeBehaviour: 'reject' });
  await post(rejected);
  const forwarded = await callbackFor(payer, rejected.transferId, 'PUT', '/error');
  assert.deepEqual(forwarded.body.errorInformation, { errorCode: '5104', errorDescription: 'Payee rejected the transaction' });
  assert.equal(forwarded.headers['fspiop-source'], 'payeefsp');
  assert.equal(await position('payerfsp'), before, 'both reservations were released');
});

test('a fulfil with transferState RESERVED commits and the payee gets a PATCH', async () => {
  const body = transferBody({ payeeBehaviour: 'reserve' });
  await post(body);
  const told = await callbackFor(payer, body.transferId, 'PUT');
  assert.deepEqual([told.body.transferState, told.headers['fspiop-source']], ['COMMITTED', 'Hub'], 'the payer hears the outcome, not RESERVED');
  assert.ok(told.body.fulfilment);
  const patch = await callbackFor(payee, body.transferId, 'PATCH');
  assert.equal(patch.body.transferState, 'COMMITTED');
  assert.ok(patch.body.completedTimestamp);
});

test('GET /transfers/{ID}: the parties get the state, anyone else and unknown ids get 3208', async () => {
  const body = transferBody();
  await post(body);
  await callbackFor(payer, body.transferId, 'PUT');
  const get = (source, id) => signedFetch(`${sw.apiUrl}/transfers/${id}`, { headers: fspiopHeaders(source, 'payeefsp') });
  assert.equal((await get('payerfsp', body.transferId)).status, 202);
  const state = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/transfers/${body.transferId}` && call.headers['fspiop-source'] === 'Hub');
  assert.equal(state.body.transferState, 'COMMITTED');
  await get('otherfsp', body.transferId);
  assert.equal((await callbackFor(outsider, body.transferId, 'PUT', '/error')).body.errorInformation.errorCode, '3208');
  const unknown = randomUUID();
  await get('payerfsp', unknown);
  assert.equal((await callbackFor(payer, unknown, 'PUT', '/error')).body.errorInformation.errorCode, '3208');
});

test('expiry after reservation: both parties get 3303, the payer position is released, a late fulfil gets 3303', async () => {
  const before = await position('payerfsp');
  const body = transferBody({ expiresInMs: 1500, payeeBehaviour: 'late' });
  await post(body);
  const prepare = await payee.waitFor((call) => call.method === 'POST' && call.body?.transferId === body.transferId);
  assert.equal((await callbackFor(payer, body.transferId, 'PUT', '/error')).body.errorInformation.errorCode, '3303');
  const expiryNotice = await callbackFor(payee, body.transferId, 'PUT', '/error');
  assert.equal(expiryNotice.body.errorInformation.errorCode, '3303');
  assert.equal(await position('payerfsp'), before);

  // The timeout handler's notice above is itself a 3303 to the payee, so the refusal of the
  // late fulfil is recognised only as a further error callback, one the notice cannot stand in for.
  const isErrorToPayee = (call) => call.method === 'PUT' && call.path === `/transfers/${body.transferId}/error`;
  assert.deepEqual(payee.received.filter(isErrorToPayee), [expiryNotice], 'before the late fulfil the payee has had the expiry notice only');
  // The right fulfilment, so that lateness is the only reason to refuse it.
  const late = await signedFetch(`${sw.apiUrl}/transfers/${body.transferId}`, {
    method: 'PUT', headers: fspiopHeaders('payeefsp', 'payerfsp', { accept: false }),
    body: JSON.stringify({ transferState: 'COMMITTED', completedTimestamp: new Date().toISOString(), fulfilment: fulfilmentFor(payee.secret, prepare.body.ilpPacket) }),
  });
  assert.equal(late.status, 200);
  const refusal = await payee.waitFor((call) => isErrorToPayee(call) && call !== expiryNotice);
  assert.equal(refusal.body.errorInformation.errorCode, '3303', refusal.body.errorInformation.errorDescription);
  assert.equal(refusal.headers['fspiop-source'], 'Hub');
  const [[row]] = await sw.admin.db.raw('SELECT state FROM transfer WHERE transfer_id = ?', [body.transferId]);
  assert.equal(row.state, 'EXPIRED_RESERVED', 'the late fulfil changed nothing');
  assert.equal(await position('payerfsp'), before);
});

test('expiry before reservation: the payer gets 3303 and the queued prepare is never reserved', async (t) => {
  // The premise is a position handler down while the timeout handler runs; in the compact
  // profile they share a process, so it cannot be arranged there.
  if (sw.profile === 'compact') return t.skip('the position and timeout handlers share a process in the compact profile');
  await sw.kill('position');
  const body = transferBody({ expiresInMs: 800 });
  await post(body);
  assert.equal((await callbackFor(payer, body.transferId, 'PUT', '/error')).body.errorInformation.errorCode, '3303');
  const before = await position('payerfsp');
  await sw.start('position');
  const [[row]] = await sw.admin.db.raw('SELECT state FROM transfer WHERE transfer_id = ?', [body.transferId]);
  assert.equal(row.state, 'EXPIRED_PREPARED');
  const quick = transferBody();
  await post(quick);
  await callbackFor(payer, quick.transferId, 'PUT');
  assert.equal((await position('payerfsp')).toFixed(4), (before + 100).toFixed(4), 'only the later transfer moved the position');
});

test('many concurrent prepares near the net debit cap never exceed it', async () => {
  const start = await position('payerfsp');
  const headroom = 1000 - start;
  const count = Math.floor(headroom / 50) + 10;
  const bodies = Array.from({ length: count }, () => transferBody({ amount: '50', expiresInMs: 60000, payeeBehaviour: 'late' }));
  await Promise.all(bodies.map((body) => post(body)));
  const reserved = await Promise.all(bodies.map((body) => Promise.race([
    payee.waitFor((call) => call.method === 'POST' && call.body?.transferId === body.transferId, 20000).then(() => 'reserved'),
    callbackFor(payer, body.transferId, 'PUT', '/error').then((call) => call.body.errorInformation.errorCode),
  ])));
  assert.equal(reserved.filter((outcome) => outcome === 'reserved').length, Math.floor(headroom / 50));
  assert.ok(reserved.filter((outcome) => outcome !== 'reserved').every((code) => code === '4200'));
  assert.ok(await position('payerfsp') <= 1000);
});

// Runs last (node:test keeps the file's order): every call the DFSPs received in this file,
// forwards and the hub's own callbacks alike, must verify with its sender's key.
test('only the payee completes a transfer: another DFSP, signing as itself, is refused its fulfil and its error; the payee\'s fulfil commits', async () => {
  // otherfsp pays, so that the reservations earlier tests left on payerfsp cannot refuse it;
  // payerfsp, a party to none of it, plays the impostor.
  const body = transferBody({ from: 'otherfsp', payeeBehaviour: 'late' });
  await post(body);
  const prepare = await payee.waitFor((call) => call.method === 'POST' && call.body?.transferId === body.transferId);
  const complete = (source, suffix, completion) => signedFetch(`${sw.apiUrl}/transfers/${body.transferId}${suffix}`, {
    method: 'PUT', headers: fspiopHeaders(source, 'otherfsp', { accept: false }), body: JSON.stringify(completion),
  });
  const fulfil = { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString(), fulfilment: fulfilmentFor(payee.secret, prepare.body.ilpPacket) };
  const abort = { errorInformation: { errorCode: '5104', errorDescription: 'Payee rejected the transaction' } };
  assert.equal((await complete('payerfsp', '', fulfil)).status, 200);
  const refusedFulfil = await callbackFor(payer, body.transferId, 'PUT', '/error');
  assert.equal(refusedFulfil.body.errorInformation.errorCode, '3100');
  assert.match(refusedFulfil.body.errorInformation.errorDescription, /not the payee FSP/);
  assert.equal((await complete('payerfsp', '/error', abort)).status, 200);
  const refusedAbort = await payer.waitFor((call) => call.path === `/transfers/${body.transferId}/error` && call !== refusedFulfil);
  assert.equal(refusedAbort.body.errorInformation.errorCode, '3100');

  // The rightful fulfil, sent after both, is the first completion the real payer hears of.
  assert.equal((await complete('payeefsp', '', fulfil)).status, 200);
  const told = await callbackFor(outsider, body.transferId, 'PUT');
  assert.equal(told.body.transferState, 'COMMITTED');
  assert.deepEqual(outsider.received.filter((call) => call.path === `/transfers/${body.transferId}/error`), [], 'the impostor\'s error never reached the payer');
});

test('every callback the DFSPs received verifies with the sender\'s or the hub\'s key', () => {
  for (const dfsp of [payer, payee, outsider]) {
    assert.ok(dfsp.received.some((call) => call.rawBody && call.headers['fspiop-source'] === 'Hub'), `${dfsp.name} received a hub-signed callback`);
    assert.deepEqual(dfsp.signatureFailures, [], `${dfsp.name}'s signature failures`);
  }
});
