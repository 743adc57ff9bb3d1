// The compact profile: the switch's components grouped into a few processes
// (scripts/services-compact.conf, scripts/compact-host.js). Each component of a host keeps its
// own port with its own /health and /metrics, and payments flow end to end; then the host of
// the ledger handlers (prepare, position, fulfil, timeout, bulk) is SIGKILLed in the middle of
// a stream of transfers, taking all five down at once, and started again: every transfer must
// reach a final state, no position change may be applied twice, every position must equal its
// journal and what the committed transfers say, and each payer must hear of its committed
// transfers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setUpHub, onboardDfsp } from '../support/admin-api.js';
import { TRANSFER_COMPONENTS, startSwitch } from '../support/switch.js';
import { readCompactHosts } from '../../scripts/lib/services-conf.js';
import { fspiopHeaders, quoteIlp, startTestDfsp } from '../support/test-dfsp.js';
import { signedFetch } from '../support/jws-keys.js';
import { probeFetch } from '../support/scheme-tls.js';

const LEDGER_HOST = 'ledger-handlers';
const TRANSFERS = 80;
const FINAL_STATES = ['COMMITTED', 'ABORTED_ERROR', 'ABORTED_REJECTED', 'EXPIRED_PREPARED', 'EXPIRED_RESERVED', 'INVALID'];

let sw;
let dfsps;

before(async () => {
  sw = await startSwitch({ profile: 'compact', components: TRANSFER_COMPONENTS });
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
    const rows = await sw.admin.db('transfer').whereIn('transfer_id', ids).select('transfer_id', 'state', 'payer_fsp');
    const pending = ids.length - rows.filter((row) => FINAL_STATES.includes(row.state)).length;
    if (pending === 0) return rows;
    if (Date.now() > deadline) throw new Error(`${pending} of ${ids.length} transfers are not final`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function assertMoneyConserved() {
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
}

test('the ledger handlers share one process, each on its own port with its own health and metrics', { timeout: 60000 }, async () => {
  const members = readCompactHosts().get(LEDGER_HOST);
  assert.deepEqual(members, ['prepare', 'position', 'fulfil', 'timeout', 'bulk']);
  const host = sw.processes.get(`${LEDGER_HOST}-0`);
  assert.equal(sw.hostProcesses().length, 3, 'edges, ledger handlers and callbacks: three processes for seven components');
  const ports = new Set();
  for (const name of members) {
    ports.add(sw.ports.get(`${name}-0`));
    const health = await probeFetch(`${sw.urlOf(name)}/health`);
    assert.equal(health.status, 200, `${name} is healthy`);
    const metrics = await (await probeFetch(`${sw.urlOf(name)}/metrics`)).text();
    // Each component's registry is its own: its series carry its name, and no other's.
    assert.match(metrics, new RegExp(`process_cpu_seconds_total\\{service="${name}"\\}`));
    for (const other of members.filter((member) => member !== name)) assert.doesNotMatch(metrics, new RegExp(`service="${other}"`));
  }
  assert.equal(ports.size, members.length, 'one port per component');
  assert.ok(host.pid > 0 && host.exitCode === null);
});

test('SIGKILL of the ledger handlers\' host mid-stream: all final, nothing applied twice, money conserved, payers told', { timeout: 240000 }, async () => {
  const before = (await send(0));
  await waitAllFinal([before], 30000);
  const pending = [];
  for (let index = 1; index <= TRANSFERS; index += 1) {
    pending.push(send(index));
    if (index === TRANSFERS / 2) {
      // Five components down at once, with batches in flight in each.
      await sw.kill(LEDGER_HOST, 0);
      await sw.start(LEDGER_HOST, 0);
    }
  }
  const ids = [before, ...(await Promise.all(pending))];
  const rows = await waitAllFinal(ids, 150000);
  assert.equal(rows.length, ids.length, 'every accepted transfer was stored');
  const committed = rows.filter((row) => row.state === 'COMMITTED');
  assert.ok(committed.length >= ids.length * 0.95, `most transfers commit (${committed.length} of ${ids.length})`);
  await assertMoneyConserved();

  // The notification handler, in another process, kept delivering: every payer hears of each
  // of its committed transfers.
  for (const { transfer_id: transferId, payer_fsp: payer } of committed) {
    const dfsp = dfsps.find(({ name }) => name === payer);
    await dfsp.waitFor((call) => call.method === 'PUT' && call.path === `/transfers/${transferId}` && call.body?.transferState === 'COMMITTED', 30000);
  }
});

test('SIGTERM stops every component of the host in order and the host exits 0', { timeout: 60000 }, async () => {
  const startedAt = Date.now();
  await sw.kill(LEDGER_HOST, 0, 'SIGTERM');
  const host = sw.processes.get(`${LEDGER_HOST}-0`);
  assert.equal(host.exitCode, 0, `the host exited with ${host.exitCode ?? host.signalCode}:\n${host.output.slice(-2000)}`);
  assert.ok(Date.now() - startedAt < 30000, 'within the consumers\' orderly stop');
});
