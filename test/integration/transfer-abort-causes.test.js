// What DFSPs see of an aborted transfer, as Mojaloop's acceptance collections check it (issue
// #29, items 2 to 6): the cause with the ABORTED state, a fulfil without its fulfilment, a
// prepare that expires before its payee answers, GET of a RESERVED transfer, and the
// descriptions DFSPs' tooling compares whole. Real switch processes, Kafka, MariaDB and HTTP
// DFSPs that verify every signed call they receive.
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
  ({ sw, dfsps: [payer, payee], stop } = await startTransferSwitch({ dfsps: [{ name: 'payerfsp', netDebitCap: '10000', fundsIn: '50000' }, { name: 'payeefsp', netDebitCap: '10000', fundsIn: '50000' }] }));
});

after(() => stop?.());

const VERSION_1_0 = 'application/vnd.interoperability.transfers+json;version=1.0';
const causeOf = (body) => body.extensionList?.extension?.find((entry) => entry.key === 'cause')?.value;

/** A prepare from the payer to the payee, which answers as told (by default not at all). */
function transferBody({ expiresInMs = 30000, payeeBehaviour = 'late' } = {}) {
  const transferId = randomUUID();
  payee.setBehaviour(transferId, payeeBehaviour);
  const expiration = new Date(Date.now() + expiresInMs).toISOString();
  const ilp = quoteIlp({ secret: payee.secret, transferId, amount: '10', currency: 'USD', payeeAddress: 'g.payeefsp.msisdn.123', expiration });
  return { transferId, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { amount: '10', currency: 'USD' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration };
}

/** Posts the prepare and waits until the payee has it (it is reserved); resolves to the forwarded prepare. */
async function prepared(body) {
  const response = await signedFetch(`${sw.apiUrl}/transfers`, { method: 'POST', headers: fspiopHeaders('payerfsp', 'payeefsp'), body: JSON.stringify(body) });
  assert.equal(response.status, 202, await response.text());
  return payee.waitFor((call) => call.method === 'POST' && call.body?.transferId === body.transferId);
}

/** A PUT /transfers/{ID} from `source` (the payee unless told), as version 1.1 unless `contentType` says otherwise. */
function fulfil(body, completion, { source = 'payeefsp', contentType } = {}) {
  const headers = { ...fspiopHeaders(source, 'payerfsp', { accept: false }), ...(contentType ? { 'content-type': contentType } : {}) };
  return signedFetch(`${sw.apiUrl}/transfers/${body.transferId}`, { method: 'PUT', headers, body: JSON.stringify(completion) });
}

/** The payer's GET, as Mojaloop's collections send it: no FSPIOP-Destination. */
function getByPayer(body) {
  return signedFetch(`${sw.apiUrl}/transfers/${body.transferId}`, { headers: fspiopHeaders('payerfsp') });
}

const callsTo = (dfsp, transferId) => dfsp.received.filter((call) => call.path.startsWith(`/transfers/${transferId}`) && call.method !== 'POST');
const errorTo = (dfsp, transferId, predicate = () => true) =>
  dfsp.waitFor((call) => call.method === 'PUT' && call.path === `/transfers/${transferId}/error` && predicate(call));
/** The hub's PUT /transfers/{ID} to `dfsp` that arrives after the `already` calls it had. */
const stateAfter = (dfsp, transferId, already) =>
  dfsp.waitFor((call) => !already.includes(call) && call.method === 'PUT' && call.path === `/transfers/${transferId}` && call.headers['fspiop-source'] === 'Hub');

async function position(name) {
  const [account] = (await sw.admin.request('GET', `/participants/${name}/accounts`)).body.filter((row) => row.ledgerAccountType === 'POSITION');
  return account.value;
}

async function stateOf(transferId) {
  const [[row]] = await sw.admin.db.raw('SELECT state FROM transfer WHERE transfer_id = ?', [transferId]);
  return row?.state;
}

/** The payer's GET and the hub's answer to it. */
async function answerToGet(body) {
  const already = [...payer.received];
  assert.equal((await getByPayer(body)).status, 202);
  return stateAfter(payer, body.transferId, already);
}

test('an invalid fulfilment: both parties get 3100 "invalid fulfilment", and the ABORTED state says why, to GET and in the PATCH', async () => {
  const committed = transferBody();
  await prepared(committed);
  assert.equal((await fulfil(committed, { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString(), fulfilment: 'z'.repeat(43) })).status, 200);
  for (const dfsp of [payer, payee]) {
    const error = await errorTo(dfsp, committed.transferId);
    assert.deepEqual(error.body.errorInformation, { errorCode: '3100', errorDescription: 'Generic validation error - invalid fulfilment' });
  }
  const answer = await answerToGet(committed);
  assert.equal(answer.body.transferState, 'ABORTED');
  assert.deepEqual(answer.body.extensionList, { extension: [{ key: 'cause', value: '3100: Generic validation error - invalid fulfilment' }] });

  const reserved = transferBody();
  await prepared(reserved);
  assert.equal((await fulfil(reserved, { transferState: 'RESERVED', completedTimestamp: new Date().toISOString(), fulfilment: 'z'.repeat(43) })).status, 200);
  const patch = await payee.waitFor((call) => call.method === 'PATCH' && call.path === `/transfers/${reserved.transferId}`);
  assert.equal(patch.body.transferState, 'ABORTED');
  assert.equal(causeOf(patch.body), '3100: Generic validation error - invalid fulfilment');
});

test('a payee\'s COMMITTED fulfil without its fulfilment is answered 200, aborts with "missing fulfilment", releases the reservation and says so to GET', async () => {
  const before = await position('payerfsp');
  const body = transferBody();
  await prepared(body);
  const response = await fulfil(body, { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() });
  assert.equal(response.status, 200, await response.text());
  for (const dfsp of [payer, payee]) {
    const error = await errorTo(dfsp, body.transferId);
    assert.deepEqual(error.body.errorInformation, { errorCode: '3100', errorDescription: 'Generic validation error - missing fulfilment' });
  }
  const answer = await answerToGet(body);
  assert.equal(answer.body.transferState, 'ABORTED');
  assert.equal(causeOf(answer.body), '3100: Generic validation error - missing fulfilment');
  assert.equal(await stateOf(body.transferId), 'ABORTED_ERROR');
  assert.equal(await position('payerfsp'), before);
});

test('a fulfil without its fulfilment from anyone but the payee is refused to its sender and aborts nothing: the payee still commits', async () => {
  const body = transferBody();
  const prepare = await prepared(body);
  // The payer answers its own transfer, as a testing toolkit that answers every prepare it receives does.
  assert.equal((await fulfil(body, { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString() }, { source: 'payerfsp' })).status, 200);
  const refusal = await errorTo(payer, body.transferId);
  assert.equal(refusal.body.errorInformation.errorCode, '3100');
  assert.match(refusal.body.errorInformation.errorDescription, /FSPIOP-Source payerfsp is not the payee FSP/);
  assert.equal(await stateOf(body.transferId), 'RESERVED');
  assert.equal((await fulfil(body, { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString(), fulfilment: fulfilmentFor(payee.secret, prepare.body.ilpPacket) })).status, 200);
  const committed = await payer.waitFor((call) => call.method === 'PUT' && call.path === `/transfers/${body.transferId}`);
  assert.equal(committed.body.transferState, 'COMMITTED');
  assert.deepEqual(callsTo(payee, body.transferId), [], 'the payee was told nothing of the refusal');
});

test('a prepare whose expiration passes before the payee answers: payer and payee each get one 3303 "Transfer expired", a late fulfil 3303 too, and GET the cause', async () => {
  const before = await position('payerfsp');
  const body = transferBody({ expiresInMs: 2000 });
  const prepare = await prepared(body);
  const expectedError = (error) => {
    assert.equal(error.body.errorInformation.errorCode, '3303');
    assert.equal(error.body.errorInformation.errorDescription, 'Transfer expired');
    assert.match(error.body.errorInformation.extensionList.extension[0].value, /^transfer expired at /);
  };
  expectedError(await errorTo(payer, body.transferId));
  expectedError(await errorTo(payee, body.transferId));
  assert.equal(await stateOf(body.transferId), 'EXPIRED_RESERVED');
  assert.equal(await position('payerfsp'), before);

  // The payee answers after all, with the right fulfilment: too late, told 3303 alone.
  const told = callsTo(payee, body.transferId).length;
  assert.equal((await fulfil(body, { transferState: 'COMMITTED', completedTimestamp: new Date().toISOString(), fulfilment: fulfilmentFor(payee.secret, prepare.body.ilpPacket) })).status, 200);
  expectedError(await payee.waitFor((call) => callsTo(payee, body.transferId).indexOf(call) >= told && call.path.endsWith('/error')));
  const answer = await answerToGet(body);
  assert.equal(answer.body.transferState, 'ABORTED');
  assert.equal(causeOf(answer.body), '3303: Transfer expired');
  const everyError = [...callsTo(payer, body.transferId), ...callsTo(payee, body.transferId)].filter((call) => call.path.endsWith('/error'));
  assert.deepEqual(everyError.map((call) => call.body.errorInformation.errorCode), ['3303', '3303', '3303'], 'no 3100 to anyone, and the payer told once');
});

test('GET of a RESERVED transfer after a version 1.0 RESERVED fulfil was dropped: PUT with transferState RESERVED, and no error callback', async () => {
  const body = transferBody({ expiresInMs: 10000 });
  const prepare = await prepared(body);
  // As Mojaloop's collection sends it: version 1.0, no completedTimestamp.
  const dropped = await fulfil(body, { transferState: 'RESERVED', fulfilment: fulfilmentFor(payee.secret, prepare.body.ilpPacket) }, { contentType: VERSION_1_0 });
  assert.equal(dropped.status, 200);
  const answer = await answerToGet(body);
  assert.deepEqual(answer.body, { transferState: 'RESERVED' });
  assert.equal(answer.headers['fspiop-destination'], 'payerfsp');
  assert.deepEqual(callsTo(payer, body.transferId).filter((call) => call.path.endsWith('/error')), [], 'no error callback to the payer');
  assert.equal(await stateOf(body.transferId), 'RESERVED');
});

test('Mojaloop\'s words: 3106 is "Modified request" and 3208 "Transfer ID not found - Provided Transfer ID was not found on the server.", the detail in the extension list', async () => {
  const body = transferBody({ payeeBehaviour: 'fulfil' });
  await prepared(body);
  const changed = { ...body, amount: { amount: '11', currency: 'USD' } };
  const response = await signedFetch(`${sw.apiUrl}/transfers`, { method: 'POST', headers: fspiopHeaders('payerfsp', 'payeefsp'), body: JSON.stringify(changed) });
  assert.equal(response.status, 202);
  const modified = await errorTo(payer, body.transferId, (call) => call.body.errorInformation?.errorCode === '3106');
  assert.equal(modified.body.errorInformation.errorDescription, 'Modified request');
  assert.deepEqual(modified.body.errorInformation.extensionList.extension, [{ key: 'detail', value: `transfer ${body.transferId} was already prepared with different content` }]);

  const unknown = { transferId: randomUUID() };
  assert.equal((await getByPayer(unknown)).status, 202);
  const notFound = await errorTo(payer, unknown.transferId);
  assert.equal(notFound.body.errorInformation.errorCode, '3208');
  assert.equal(notFound.body.errorInformation.errorDescription, 'Transfer ID not found - Provided Transfer ID was not found on the server.');
  assert.equal(notFound.body.errorInformation.extensionList.extension[0].key, 'detail');
});
