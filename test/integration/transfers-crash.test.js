// With two replicas of every handler, each handler in turn is SIGKILLed in the middle of a
// stream of transfers and restarted. Every transfer must reach a final state, no position
// change may be applied twice, and the positions must add up to what the committed
// transfers say: money is conserved.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setUpHub, onboardDfsp } from '../support/admin-api.js';
import { TRANSFER_COMPONENTS, startSwitch } from '../support/switch.js';
import { fspiopHeaders, quoteIlp, startTestDfsp } from '../support/test-dfsp.js';
import { signedFetch } from '../support/jws-keys.js';

const HANDLERS = ['prepare', 'position', 'fulfil', 'notification', 'timeout'];
const TRANSFERS_PER_ROUND = 60;

let sw;
let dfsps;

before(async () => {
  sw = await startSwitch({ components: TRANSFER_COMPONENTS, replicas: Object.fromEntries(HANDLERS.map((name) => [name, 2])) });
  await setUpHub(sw.admin.request);
  dfsps = [await startTestDfsp({ name: 'dfspa', switchUrl: sw.apiUrl }), await startTestDfsp({ name: 'dfspb', switchUrl: sw.apiUrl })];
  for (const dfsp of dfsps) await onboardDfsp(sw.admin.request, { name: dfsp.name, endpointBase: dfsp.url, netDebitCap: '1000000', fundsIn: '1000000' });
});

after(async () => {
  await Promise.all((dfsps ?? []).map((dfsp) => dfsp.close()));
  await sw?.stop();
});

async function send(index) {
  const [from, to] = index % 2 === 0 ? dfsps : [dfsps[1], dfsps[0]];
  const transferId = randomUUID();
  const amount = `${1 + (index % 7)}.${1 + (index % 9)}`; // FSPIOP amounts have no trailing zeros
  const expiration = new Date(Date.now() + 40000).toISOString();
  const ilp = quoteIlp({ secret: to.secret, transferId, amount, currency: 'USD', payeeAddress: `g.${to.name}`, expiration });
  const body = { transferId, payerFsp: from.name, payeeFsp: to.name, amount: { amount, currency: 'USD' }, ...ilp, expiration };
  const response = await signedFetch(`${sw.apiUrl}/transfers`, { method: 'POST', headers: fspiopHeaders(from.name, to.name), body: JSON.stringify(body) });
  assert.equal(response.status, 202);
  return transferId;
}

async function waitAllFinal(ids, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await sw.admin.db('transfer').whereIn('transfer_id', ids).select('state');
    const pending = ids.length - rows.filter((row) => ['COMMITTED', 'ABORTED_ERROR', 'ABORTED_REJECTED', 'EXPIRED_PREPARED', 'EXPIRED_RESERVED', 'INVALID'].includes(row.state)).length;
    if (pending === 0) return rows;
    if (Date.now() > deadline) throw new Error(`${pending} of ${ids.length} transfers are not final`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

test('SIGKILL of each handler in turn mid-stream: all final, nothing applied twice, money conserved', { timeout: 240000 }, async () => {
  const ids = [];
  for (const handler of HANDLERS) {
    const round = [];
    for (let index = 0; index < TRANSFERS_PER_ROUND; index += 1) {
      round.push(send(ids.length + index));
      if (index === TRANSFERS_PER_ROUND / 2) {
        await sw.kill(handler, 0);
        await sw.start(handler, 0);
      }
    }
    ids.push(...(await Promise.all(round)));
  }
  const rows = await waitAllFinal(ids, 120000);
  assert.equal(rows.length, ids.length, 'every accepted transfer was stored');
  const committed = rows.filter((row) => row.state === 'COMMITTED').length;
  assert.ok(committed >= ids.length * 0.95, `most transfers commit (${committed} of ${ids.length})`);

  const [duplicates] = await sw.admin.db.raw('SELECT transfer_id, account_id, reason, COUNT(*) AS n FROM position_change GROUP BY transfer_id, account_id, reason HAVING n > 1');
  assert.deepEqual(duplicates, [], 'no position change was applied twice');
  const [mismatches] = await sw.admin.db.raw(`
    SELECT p.account_id FROM position p LEFT JOIN position_change c ON c.account_id = p.account_id
    GROUP BY p.account_id, p.value HAVING p.value <> COALESCE(SUM(c.change), 0)`);
  assert.deepEqual(mismatches, [], 'every position equals its journal');
  for (const dfsp of dfsps) {
    const [[{ expected }]] = await sw.admin.db.raw(`
      SELECT COALESCE(SUM(CASE WHEN payer_fsp = ? THEN amount ELSE -amount END), 0) AS expected
      FROM transfer WHERE kind = 'PAYMENT' AND state = 'COMMITTED' AND ? IN (payer_fsp, payee_fsp)`, [dfsp.name, dfsp.name]);
    const [[{ value }]] = await sw.admin.db.raw(`SELECT p.value FROM position p JOIN account a ON a.id = p.account_id
      JOIN participant pt ON pt.id = a.participant_id WHERE pt.name = ? AND a.type = 'POSITION'`, [dfsp.name]);
    assert.equal(value, expected, `${dfsp.name}'s position is what its committed transfers say`);
  }
});
