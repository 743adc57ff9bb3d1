// What an operator changes through the admin API reaches the transfer handlers' hot path at
// once: the position handler reads a net debit cap with the locked position in every batch,
// and the prepare handler reads participants' active flags in every batch, so neither is
// cached (handlers/README.md, "The ledger's hot path"). Each change is followed at once by a
// transfer that only the changed value decides; there is no waiting for a cache to expire.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTransferSwitch } from '../support/transfer-switch.js';
import { fspiopHeaders, quoteIlp } from '../support/test-dfsp.js';
import { signedFetch } from '../support/jws-keys.js';

let sw;
let payer;
let payee;
let stop;

before(async () => {
  ({ sw, dfsps: [payer, payee], stop } = await startTransferSwitch({ dfsps: [{ name: 'capfsp', netDebitCap: '1000', fundsIn: '5000' }, { name: 'payeefsp', netDebitCap: '1000', fundsIn: '5000' }] }));
});

after(() => stop?.());

/** Sends a prepare from the payer (the payee fulfils) and resolves to the payer's callback. */
async function pay(amount) {
  const transferId = randomUUID();
  payee.setBehaviour(transferId, 'fulfil');
  const expiration = new Date(Date.now() + 30000).toISOString();
  const ilp = quoteIlp({ secret: payee.secret, transferId, amount, currency: 'USD', payeeAddress: 'g.payeefsp.msisdn.123', expiration });
  const body = { transferId, payerFsp: 'capfsp', payeeFsp: 'payeefsp', amount: { amount, currency: 'USD' }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration };
  const response = await signedFetch(`${sw.apiUrl}/transfers`, { method: 'POST', headers: fspiopHeaders('capfsp', 'payeefsp'), body: JSON.stringify(body) });
  assert.equal(response.status, 202, await response.text());
  return payer.waitFor((call) => call.method === 'PUT' && call.path.startsWith(`/transfers/${transferId}`));
}

const outcome = (callback) => callback.body.transferState ?? callback.body.errorInformation.errorCode;

async function setNetDebitCap(value) {
  const response = await sw.admin.request('PUT', '/participants/capfsp/limits', { currency: 'USD', limit: { type: 'NET_DEBIT_CAP', value } });
  assert.equal(response.status, 200, JSON.stringify(response.body));
}

test('a net debit cap changed through the admin API decides the very next reservation', async () => {
  assert.equal(outcome(await pay('200')), 'COMMITTED', 'within the cap of 1000');
  await setNetDebitCap(150);
  assert.equal(outcome(await pay('200')), '4200', 'over the lowered cap at once');
  await setNetDebitCap(1000);
  assert.equal(outcome(await pay('200')), 'COMMITTED', 'the raised cap applies at once');
});

test('a payer deactivated through the admin API is refused on its very next prepare, and served once reactivated', async () => {
  const deactivated = await sw.admin.request('PUT', '/participants/capfsp', { isActive: false });
  assert.equal(deactivated.status, 200, JSON.stringify(deactivated.body));
  const refused = await pay('10');
  assert.equal(outcome(refused), '3100');
  assert.match(refused.body.errorInformation.errorDescription, /capfsp is not active/);
  assert.equal((await sw.admin.request('PUT', '/participants/capfsp', { isActive: true })).status, 200);
  assert.equal(outcome(await pay('10')), 'COMMITTED');
});
