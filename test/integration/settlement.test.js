// Settlement end to end through the real switch: transfers committed by the real handlers
// over Kafka and MariaDB are recorded in settlement windows, and the settlement API (its own
// process, central-settlement's routes) closes the windows, settles them net and resets the
// positions. Every expected net amount is computed here from the transfers this file made,
// as scaled BigInt, never from what the switch reports. Windows are global to the switch, so
// the tests run in order and each one works on windows it closed itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { formatAmount, parseAmount, amountFromColumn } from '../../ledger/domain/money.js';
import { adminHeaders, onboardDfsp, setUpHub } from '../support/admin-api.js';
import { signedFetch } from '../support/jws-keys.js';
import { accountsOf, balancesOf, operatorClient, pollUntil } from '../support/settlement-api.js';
import { TRANSFER_COMPONENTS, startSwitch } from '../support/switch.js';
import { fspiopHeaders, quoteIlp, startTestDfsp } from '../support/test-dfsp.js';

const USD_DFSPS = ['alphafsp', 'betafsp', 'gammafsp', 'deltafsp'];
const EUR_DFSPS = ['eurpayerfsp', 'eurpayeefsp'];
const KES_DFSPS = ['kespayerfsp', 'kespayeefsp'];
const NET_MODEL = 'DEFERREDNETUSD';
const GROSS_MODEL = 'CGSEUR';

let sw;
let settlementApi;
let adminApi;
const dfsps = new Map(); // name → test DFSP
const accounts = new Map(); // name → { positionAccountId, settlementAccountId }

before(async () => {
  sw = await startSwitch({ components: [...TRANSFER_COMPONENTS, 'settlement-api'], env: { GROSS_SETTLEMENT_INTERVAL_MS: '100' } });
  settlementApi = operatorClient(sw.urlOf('settlement-api'));
  adminApi = operatorClient(sw.admin.baseUrl);
  await setUpHub(sw.admin.request, 'USD');
  for (const name of [...USD_DFSPS, ...EUR_DFSPS]) dfsps.set(name, await startTestDfsp({ name, switchUrl: sw.apiUrl }));
  for (const name of USD_DFSPS) {
    accounts.set(name, await onboardDfsp(sw.admin.request, { name, endpointBase: dfsps.get(name).url, netDebitCap: '100000', fundsIn: '100000' }));
  }
});

after(async () => {
  await Promise.all([...dfsps.values()].map((dfsp) => dfsp.close()));
  await sw?.stop();
});

/**
 * Sends one transfer and waits for the payer to hear its outcome: 'COMMITTED', or the error
 * code. `behaviour` is how the payee answers (test-dfsp.js), 'fulfil' by default.
 */
async function transfer({ from, to, amount, currency = 'USD', behaviour = 'fulfil' }) {
  const transferId = randomUUID();
  const payer = dfsps.get(from);
  const payee = dfsps.get(to);
  payee.setBehaviour(transferId, behaviour);
  const expiration = new Date(Date.now() + 60000).toISOString();
  const ilp = quoteIlp({ secret: payee.secret, transferId, amount, currency, payeeAddress: `g.${to}.msisdn.1`, expiration });
  const body = { transferId, payerFsp: from, payeeFsp: to, amount: { amount, currency }, ilpPacket: ilp.ilpPacket, condition: ilp.condition, expiration };
  const response = await signedFetch(`${sw.apiUrl}/transfers`, { method: 'POST', headers: fspiopHeaders(from, to), body: JSON.stringify(body) });
  assert.equal(response.status, 202, await response.text());
  const outcome = await payer.waitFor((call) => call.method === 'PUT' && call.path.startsWith(`/transfers/${transferId}`), 30000);
  const state = outcome.body.transferState ?? outcome.body.errorInformation.errorCode;
  return { transferId, from, to, amount, currency, state };
}

async function committedTransfer(details) {
  const done = await transfer(details);
  assert.equal(done.state, 'COMMITTED', `${details.from} → ${details.to} ${details.amount}`);
  return done;
}

/** Net per position account, as central-settlement signs it: what each paid minus what it received. */
function expectedNets(transfers) {
  const nets = new Map();
  const add = (name, amount) => {
    const accountId = accounts.get(name).positionAccountId;
    nets.set(accountId, (nets.get(accountId) ?? 0n) + amount);
  };
  for (const { from, to, amount } of transfers) {
    add(from, parseAmount(amount));
    add(to, -parseAmount(amount));
  }
  return nets;
}

function assertNets(settlement, expected, currency = 'USD') {
  const actual = accountsOf(settlement);
  assert.deepEqual([...actual.keys()].sort((a, b) => a - b), [...expected.keys()].sort((a, b) => a - b), 'one account per DFSP that took part');
  for (const [accountId, net] of expected) {
    assert.equal(actual.get(accountId).amountText, formatAmount(net), `net of position account ${accountId}`);
    assert.equal(actual.get(accountId).currency, currency);
  }
  assert.equal([...actual.values()].reduce((sum, account) => sum + account.net, 0n), 0n, 'the nets sum to zero');
}

function assertRefused(answer, description) {
  assert.equal(answer.status, 400, answer.text);
  assert.equal(answer.body.errorInformation.errorCode, '3100', answer.text);
  if (description instanceof RegExp) assert.match(answer.body.errorInformation.errorDescription, description);
  else assert.equal(answer.body.errorInformation.errorDescription, `Generic validation error - ${description}`);
}

async function openWindowId() {
  const answer = await settlementApi('GET', '/v2/settlementWindows?state=OPEN');
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.length, 1, 'exactly one window is open');
  return answer.body[0].settlementWindowId;
}

const closeWindow = (id, reason = 'end of the test\'s business day') => settlementApi('POST', `/v2/settlementWindows/${id}`, { state: 'CLOSED', reason });

async function closeOpenWindow() {
  const id = await openWindowId();
  const answer = await closeWindow(id);
  assert.equal(answer.status, 200, answer.text);
  return id;
}

async function createSettlement(windowIds, settlementModel = NET_MODEL) {
  return settlementApi('POST', '/v2/settlements', { settlementModel, reason: 'settlement test', settlementWindows: windowIds.map((id) => ({ id })) });
}

/** Every account of the settlement asked to move to `state`, in one PUT, ids as JSON numbers as operators send them. */
function moveAccounts(settlement, state) {
  return settlementApi('PUT', `/v2/settlements/${settlement.id}`, {
    participants: settlement.participants.map((participant) => ({
      id: participant.id, accounts: participant.accounts.map((account) => ({ id: account.id, state, reason: `to ${state}` })),
    })),
  });
}

async function moveAllAccounts(settlement, state) {
  const answer = await moveAccounts(settlement, state);
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.state, state, 'the settlement follows its accounts');
  for (const [accountId, account] of accountsOf(answer.body)) {
    assert.equal(account.errorInformation, undefined, `account ${accountId}: ${JSON.stringify(account.errorInformation)}`);
    assert.equal(account.state, state);
  }
  return answer.body;
}

async function balancesOfAll(names, currency = 'USD') {
  return new Map(await Promise.all(names.map(async (name) => [name, await balancesOf(adminApi, name, currency)])));
}

const readWindow = async (id) => (await settlementApi('GET', `/v2/settlementWindows/${id}`)).body;

test('windows: one is open; an empty one does not close; after a commit it closes into a new open one, once; bad queries get 3100', async () => {
  const firstId = await openWindowId();
  assertRefused(await closeWindow(firstId), `Window ${firstId} is empty`);
  await committedTransfer({ from: 'alphafsp', to: 'betafsp', amount: '10.25' });

  // Only the operator's read-write token may close a window: the read-only one may look.
  const readOnly = operatorClient(sw.urlOf('settlement-api'), 'readOnly');
  assert.equal((await readOnly('POST', `/v2/settlementWindows/${firstId}`, { state: 'CLOSED', reason: 'not mine to close' })).status, 403);
  assert.equal((await readOnly('GET', `/v2/settlementWindows/${firstId}`)).status, 200);
  const anonymous = await fetch(`${sw.urlOf('settlement-api')}/v2/settlementWindows/${firstId}`);
  assert.equal(anonymous.status, 401, 'no token, no answer');
  assert.equal((await readWindow(firstId)).state, 'OPEN', 'refused calls closed nothing');

  const closed = await closeWindow(firstId);
  assert.equal(closed.status, 200, closed.text);
  assert.equal(closed.body.state, 'OPEN', 'the answer is the window opened in its place');
  assert.ok(closed.body.settlementWindowId > firstId);
  assert.equal('content' in closed.body, false);
  assert.equal(await openWindowId(), closed.body.settlementWindowId);

  const old = await readWindow(firstId);
  assert.equal(old.state, 'CLOSED');
  assert.deepEqual(old.content.map((content) => [content.currencyId, content.state, content.ledgerAccountType, content.settlementId]), [['USD', 'CLOSED', 'POSITION', null]]);
  const [row] = await sw.admin.db('settlement_window_content').where({ settlement_window_id: firstId });
  assert.deepEqual([row.transfer_count, amountFromColumn(row.amount)], [1, parseAmount('10.25')]);

  assertRefused(await closeWindow(firstId), `Window ${firstId} is not open`);
  assertRefused(await closeWindow(999999), 'Window 999999 does not exist');
  assertRefused(await settlementApi('GET', '/v2/settlementWindows'), /^Generic validation error - Use at least one parameter: /);
  assertRefused(await settlementApi('GET', '/v2/settlementWindows/999999'), 'No record for settlementWindowId: 999999 found');
  assertRefused(await settlementApi('GET', '/v2/settlementWindows?state=SETTLED'), 'settlementWindow by filters: {state:SETTLED} not found');
  const { id: alphaId } = await sw.admin.db('participant').where({ name: 'alphafsp' }).first('id');
  const { id: gammaId } = await sw.admin.db('participant').where({ name: 'gammafsp' }).first('id');
  const ofAlpha = await settlementApi('GET', `/v2/settlementWindows?participantId=${alphaId}&currency=USD`);
  assert.deepEqual(ofAlpha.body.map((item) => item.settlementWindowId), [firstId], 'the window holding alphafsp\'s transfer');
  assert.equal((await settlementApi('GET', `/v2/settlementWindows?participantId=${gammaId}`)).status, 400, 'gammafsp has no transfer yet');
});

let netSettlement; // test 2's settlement, which test 3 takes through every state
let netSettlementNets;
let netSettlementWindows;

test('a settlement over two windows nets every DFSP\'s transfers in both, and the nets sum to zero', async () => {
  const firstWindow = await Promise.all([
    committedTransfer({ from: 'alphafsp', to: 'betafsp', amount: '100.1' }),
    committedTransfer({ from: 'betafsp', to: 'gammafsp', amount: '55.55' }),
    committedTransfer({ from: 'gammafsp', to: 'deltafsp', amount: '20' }),
    committedTransfer({ from: 'deltafsp', to: 'alphafsp', amount: '7.01' }),
    committedTransfer({ from: 'alphafsp', to: 'betafsp', amount: '0.99' }),
  ]);
  const firstId = await closeOpenWindow();
  const secondWindow = await Promise.all([
    committedTransfer({ from: 'alphafsp', to: 'gammafsp', amount: '33.33' }),
    committedTransfer({ from: 'deltafsp', to: 'betafsp', amount: '12.34' }),
    committedTransfer({ from: 'gammafsp', to: 'alphafsp', amount: '99.99' }),
    committedTransfer({ from: 'betafsp', to: 'deltafsp', amount: '250' }),
  ]);
  const secondId = await closeOpenWindow();
  const expected = expectedNets([...firstWindow, ...secondWindow]);

  assertRefused(await createSettlement([firstId, secondId], 'NOSUCHMODEL'), 'Settlement model not found: NOSUCHMODEL');
  const created = await createSettlement([secondId, firstId]);
  assert.equal(created.status, 200, created.text);
  const settlement = created.body;
  assert.deepEqual([settlement.state, settlement.settlementModel], ['PENDING_SETTLEMENT', NET_MODEL]);
  const windowStates = settlement.settlementWindows.map((item) => [item.id, item.state]).sort(([a], [b]) => a - b);
  assert.deepEqual(windowStates, [[firstId, 'PENDING_SETTLEMENT'], [secondId, 'PENDING_SETTLEMENT']]);
  for (const item of settlement.settlementWindows) {
    assert.deepEqual(item.content.map((content) => [content.currencyId, content.state, content.settlementId]), [['USD', 'PENDING_SETTLEMENT', settlement.id]]);
  }
  assertNets(settlement, expected);
  assert.ok([...accountsOf(settlement).values()].every((account) => account.state === 'PENDING_SETTLEMENT'));

  const stored = await sw.admin.db('settlement_participant_account').where({ settlement_id: settlement.id });
  assert.deepEqual(new Map(stored.map((row) => [row.account_id, amountFromColumn(row.net_amount)])), expected, 'the stored nets');
  const read = await settlementApi('GET', `/v2/settlements/${settlement.id}`);
  assert.deepEqual(read.body.participants, settlement.participants, 'GET answers the nets POST answered');
  const byWindow = await settlementApi('GET', `/v2/settlements?settlementWindowId=${firstId}`);
  assert.deepEqual(byWindow.body.map((item) => item.id), [settlement.id]);
  assertRefused(await settlementApi('GET', '/v2/settlements/999999'), 'Settlement not found');
  assertRefused(await settlementApi('GET', '/v2/settlements?state=SETTLED'), 'Settlements not found');
  netSettlement = settlement;
  netSettlementNets = expected;
  netSettlementWindows = [firstId, secondId];
});

test('a settlement moves only in the API\'s order, and its commit moves each position by −net and each settlement account by +net', async () => {
  assert.ok(netSettlement, 'the previous test\'s settlement');
  const names = USD_DFSPS;
  const nameOf = new Map(names.map((name) => [accounts.get(name).positionAccountId, name]));
  const before = await balancesOfAll([...names, 'Hub']);

  const early = await moveAccounts(netSettlement, 'PS_TRANSFERS_COMMITTED');
  assert.equal(early.status, 200, early.text);
  for (const [accountId, account] of accountsOf(early.body)) {
    assert.deepEqual(account.errorInformation, { errorCode: '3000', errorDescription: 'Generic client error - State change not allowed' }, `account ${accountId}`);
  }
  const stranger = await settlementApi('PUT', `/v2/settlements/${netSettlement.id}`, {
    participants: [{ id: netSettlement.participants[0].id, accounts: [{ id: 999999, state: 'PS_TRANSFERS_RECORDED', reason: 'no such account' }] }],
  });
  assert.equal(accountsOf(stranger.body).get(999999).errorInformation.errorDescription, 'Generic client error - Account not found');
  const unmoved = (await settlementApi('GET', `/v2/settlements/${netSettlement.id}`)).body;
  assert.equal(unmoved.state, 'PENDING_SETTLEMENT');
  assert.ok([...accountsOf(unmoved).values()].every((account) => account.state === 'PENDING_SETTLEMENT'), 'nothing moved');

  await moveAllAccounts(netSettlement, 'PS_TRANSFERS_RECORDED');
  await moveAllAccounts(netSettlement, 'PS_TRANSFERS_RESERVED');
  assert.deepEqual(await balancesOfAll([...names, 'Hub']), before, 'recording and reserving move no balance');

  // The same commit asked twice at once (an operator's retry): the positions move once.
  const [committed, repeated] = await Promise.all([0, 1].map(() => moveAccounts(netSettlement, 'PS_TRANSFERS_COMMITTED')));
  for (const answer of [committed, repeated]) {
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.body.state, 'PS_TRANSFERS_COMMITTED');
    assert.ok([...accountsOf(answer.body).values()].every((account) => !account.errorInformation && account.state === 'PS_TRANSFERS_COMMITTED'), answer.text);
  }
  assertNets(committed.body, netSettlementNets);
  const afterCommit = await balancesOfAll([...names, 'Hub']);
  for (const [accountId, net] of netSettlementNets) {
    const name = nameOf.get(accountId);
    assert.equal(afterCommit.get(name).POSITION, before.get(name).POSITION - net, `${name}'s position falls by its net`);
    assert.equal(afterCommit.get(name).SETTLEMENT, before.get(name).SETTLEMENT + net, `${name}'s settlement account rises by its net`);
  }
  assert.equal(afterCommit.get('Hub').HUB_MULTILATERAL_SETTLEMENT, before.get('Hub').HUB_MULTILATERAL_SETTLEMENT, 'the hub\'s account ends where it was');
  const journal = await sw.admin.db('position_change').where('transfer_id', 'like', `settlement-${netSettlement.id}-%`).select('transfer_id', 'reason');
  assert.equal(journal.length, 4 * netSettlementNets.size, 'four journal rows per account: position and funds, each against the hub');

  assertRefused(await settlementApi('PUT', `/v2/settlements/${netSettlement.id}`, { state: 'ABORTED', reason: 'too late' }), /not allowed|committed/);
  const settled = await moveAllAccounts(netSettlement, 'SETTLED');
  assert.deepEqual(settled.settlementWindows.map((item) => item.state), ['SETTLED', 'SETTLED']);
  for (const id of netSettlementWindows) {
    const settledWindow = await readWindow(id);
    assert.equal(settledWindow.state, 'SETTLED');
    assert.deepEqual(settledWindow.content.map((content) => content.state), ['SETTLED']);
  }
  assert.deepEqual(await balancesOfAll([...names, 'Hub']), afterCommit, 'SETTLED moves nothing more');
  assertRefused(await createSettlement(netSettlementWindows), `Inapplicable windows ${netSettlementWindows.join(', ')}`);
});

test('an aborted settlement gives its window back untouched, and a new settlement over it has the same nets', async () => {
  const transfers = await Promise.all([
    committedTransfer({ from: 'alphafsp', to: 'betafsp', amount: '40' }),
    committedTransfer({ from: 'gammafsp', to: 'betafsp', amount: '15.5' }),
    committedTransfer({ from: 'betafsp', to: 'alphafsp', amount: '3.25' }),
  ]);
  const windowId = await closeOpenWindow();
  const expected = expectedNets(transfers);
  const first = (await createSettlement([windowId])).body;
  assertNets(first, expected);
  const before = await balancesOfAll([...USD_DFSPS, 'Hub']);
  await moveAllAccounts(first, 'PS_TRANSFERS_RECORDED');

  const aborted = await settlementApi('PUT', `/v2/settlements/${first.id}`, { state: 'ABORTED', reason: 'wrong bank file' });
  assert.equal(aborted.status, 200, aborted.text);
  assert.deepEqual(aborted.body, { id: first.id, state: 'ABORTED', reason: 'wrong bank file' });
  const read = (await settlementApi('GET', `/v2/settlements/${first.id}`)).body;
  assert.equal(read.state, 'ABORTED');
  assert.ok([...accountsOf(read).values()].every((account) => account.state === 'ABORTED'), 'every account aborted');
  const given = await readWindow(windowId);
  assert.equal(given.state, 'ABORTED');
  assert.deepEqual(given.content.map((content) => content.state), ['ABORTED']);
  assert.deepEqual(await balancesOfAll([...USD_DFSPS, 'Hub']), before, 'an abort moves no balance');

  // Two operators settling the window at once: exactly one settlement takes it.
  const racing = await Promise.all([0, 1].map(() => createSettlement([windowId])));
  assert.deepEqual(racing.map((answer) => answer.status).sort(), [200, 400], racing.map((answer) => answer.text).join('\n'));
  const again = racing.find((answer) => answer.status === 200);
  assertRefused(racing.find((answer) => answer.status === 400), `Inapplicable windows ${windowId}`);
  assert.notEqual(again.body.id, first.id);
  assertNets(again.body, expected);
  assert.equal((await readWindow(windowId)).state, 'PENDING_SETTLEMENT');
  assertRefused(await createSettlement([windowId]), `Inapplicable windows ${windowId}`);
  retakenSettlement = again.body;
  retakenNets = expected;
  retakenWindowId = windowId;
});

let retakenSettlement; // the previous test's second settlement, which the next one settles account by account
let retakenNets;
let retakenWindowId;

/** Moves each account on its own, through the per-participant or the per-account route; returns the settlement's state after each. */
async function moveOneByOne(settlement, state, route) {
  const states = [];
  for (const participant of settlement.participants) {
    for (const account of participant.accounts) {
      const base = `/v2/settlements/${settlement.id}/participants/${participant.id}`;
      const answer = route === 'participant'
        ? await settlementApi('PUT', base, { accounts: [{ id: account.id, state, reason: `to ${state}` }] })
        : await settlementApi('PUT', `${base}/accounts/${account.id}`, { state, reason: `to ${state}` });
      assert.equal(answer.status, 200, answer.text);
      assert.equal(accountsOf(answer.body).get(account.id).state, state, answer.text);
      states.push(answer.body.state);
    }
  }
  return states;
}

test('accounts moved one by one through the participant and account routes: the settlement is SETTLING until the last one is SETTLED', async () => {
  assert.ok(retakenSettlement, 'the previous test\'s settlement');
  const count = retakenNets.size;
  const waiting = (state, next) => [...Array(count - 1).fill(state), next];
  assert.deepEqual(await moveOneByOne(retakenSettlement, 'PS_TRANSFERS_RECORDED', 'participant'), waiting('PENDING_SETTLEMENT', 'PS_TRANSFERS_RECORDED'));
  assert.deepEqual(await moveOneByOne(retakenSettlement, 'PS_TRANSFERS_RESERVED', 'account'), waiting('PS_TRANSFERS_RECORDED', 'PS_TRANSFERS_RESERVED'));
  const before = await balancesOfAll([...USD_DFSPS, 'Hub']);
  assert.deepEqual(await moveOneByOne(retakenSettlement, 'PS_TRANSFERS_COMMITTED', 'account'), waiting('PS_TRANSFERS_RESERVED', 'PS_TRANSFERS_COMMITTED'));
  const after = await balancesOfAll([...USD_DFSPS, 'Hub']);
  for (const name of USD_DFSPS) {
    const net = retakenNets.get(accounts.get(name).positionAccountId) ?? 0n;
    assert.equal(after.get(name).POSITION, before.get(name).POSITION - net, `${name}'s position`);
    assert.equal(after.get(name).SETTLEMENT, before.get(name).SETTLEMENT + net, `${name}'s settlement account`);
  }
  assert.equal(after.get('Hub').HUB_MULTILATERAL_SETTLEMENT, before.get('Hub').HUB_MULTILATERAL_SETTLEMENT);
  assert.deepEqual(await moveOneByOne(retakenSettlement, 'SETTLED', 'participant'), waiting('SETTLING', 'SETTLED'));
  assert.equal((await readWindow(retakenWindowId)).state, 'SETTLED');
});

/** Runs `tasks` (functions returning promises) with at most `inFlight` running at a time. */
async function runPooled(tasks, inFlight) {
  const results = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const index = next;
      next += 1;
      results[index] = await tasks[index]();
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return results;
}

/** Closes the open window every `intervalMs` until `stop()`; an empty window is skipped. */
function closeRepeatedly(intervalMs) {
  let stopped = false;
  const closed = [];
  const unexpected = [];
  const running = (async () => {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
      const id = await openWindowId();
      const answer = await closeWindow(id, 'closed under load');
      if (answer.status === 200) closed.push(id);
      else if (answer.body?.errorInformation?.errorDescription !== `Generic validation error - Window ${id} is empty`) unexpected.push(answer.text);
    }
  })();
  return { closed, unexpected, stop: async () => { stopped = true; await running; } };
}

test('windows closed while transfers commit at full speed hold every committed transfer exactly once, and nothing arrives after a close', async () => {
  const firstWindow = await openWindowId();
  const plans = Array.from({ length: 300 }, (unused, index) => {
    const from = USD_DFSPS[index % 4];
    const to = USD_DFSPS[(index + 1 + (Math.floor(index / 4) % 3)) % 4];
    // Cents from 1.00 to 90.99, written as FSPIOP wants them (no trailing zeros).
    const amount = formatAmount(BigInt(100 + ((index * 3713) % 9000)) * 100n);
    return { from, to, amount, behaviour: index % 10 === 9 ? 'reject' : 'fulfil' };
  });
  const closer = closeRepeatedly(200);
  let outcomes;
  try {
    outcomes = await runPooled(plans.map((plan) => () => transfer(plan)), 30);
  } finally {
    await closer.stop();
  }
  assert.deepEqual(closer.unexpected, [], 'every close answered 200 or "is empty"');
  const lastId = await openWindowId();
  if ((await closeWindow(lastId)).status === 200) closer.closed.push(lastId);

  const committed = outcomes.filter((outcome) => outcome.state === 'COMMITTED');
  assert.equal(committed.length, plans.filter((plan) => plan.behaviour === 'fulfil').length, 'every fulfilled transfer committed');
  assert.ok(outcomes.filter((outcome) => outcome.state !== 'COMMITTED').every((outcome) => outcome.state === '5104'), 'the rest were rejected');
  const windows = closer.closed.filter((id) => id >= firstWindow).sort((a, b) => a - b);
  assert.ok(windows.length >= 3, `the windows closed while transfers committed: ${windows}`);

  const testIds = outcomes.map((outcome) => outcome.transferId);
  const journal = await sw.admin.db('settlement_window_transfer').whereIn('transfer_id', testIds);
  assert.deepEqual(journal.map((row) => row.transfer_id).sort(), committed.map((outcome) => outcome.transferId).sort(), 'every committed transfer once, nothing else');
  const committedInDatabase = await sw.admin.db('transfer').whereIn('transfer_id', testIds).where({ state: 'COMMITTED' }).pluck('transfer_id');
  assert.deepEqual(committedInDatabase.sort(), journal.map((row) => row.transfer_id).sort());
  assert.ok(journal.every((row) => windows.includes(row.settlement_window_id)), 'each in a window this test closed');
  const usedWindows = new Set(journal.map((row) => row.settlement_window_id));
  assert.ok(usedWindows.size >= 2, `the transfers spread over several windows: ${[...usedWindows]}`);

  // The content was summed inside the close's transaction; a transfer recorded in the window
  // after it closed would make the journal's sums differ from it now.
  for (const id of windows) {
    const rows = journal.filter((row) => row.settlement_window_id === id);
    const [content] = await sw.admin.db('settlement_window_content').where({ settlement_window_id: id, currency: 'USD' });
    assert.equal(content.transfer_count, rows.length, `window ${id}'s transfer count`);
    assert.equal(amountFromColumn(content.amount), rows.reduce((sum, row) => sum + amountFromColumn(row.amount), 0n), `window ${id}'s amount`);
    assert.equal((await readWindow(id)).state, 'CLOSED');
  }

  const created = await createSettlement(windows);
  assert.equal(created.status, 200, created.text);
  const expected = expectedNets(committed);
  assertNets(created.body, expected);
  const changes = await sw.admin.db('position_change').whereIn('transfer_id', committed.map((outcome) => outcome.transferId))
    .whereIn('reason', ['PREPARE', 'COMMIT']).select('account_id', 'change');
  const journalNets = new Map();
  for (const row of changes) journalNets.set(row.account_id, (journalNets.get(row.account_id) ?? 0n) + amountFromColumn(row.change));
  assert.deepEqual(journalNets, expected, 'the nets are the positions the transfers moved');
});

/** Hub accounts and a continuous gross settlement model in EUR, and two DFSPs settled by it. */
async function setUpGrossCurrency() {
  for (const type of ['HUB_MULTILATERAL_SETTLEMENT', 'HUB_RECONCILIATION']) {
    const created = await sw.admin.request('POST', '/participants/Hub/accounts', { type, currency: 'EUR' });
    assert.equal(created.status, 201, created.text);
  }
  const model = await sw.admin.request('POST', '/settlementModels', {
    name: GROSS_MODEL, settlementGranularity: 'GROSS', settlementInterchange: 'BILATERAL', settlementDelay: 'IMMEDIATE', currency: 'EUR',
    requireLiquidityCheck: true, ledgerAccountType: 'POSITION', settlementAccountType: 'SETTLEMENT', autoPositionReset: true,
  });
  assert.equal(model.status, 201, model.text);
  for (const name of EUR_DFSPS) {
    accounts.set(name, await onboardDfsp(sw.admin.request, { name, currency: 'EUR', endpointBase: dfsps.get(name).url, netDebitCap: '1000', fundsIn: '1000' }));
  }
}

test('continuous gross settlement: a committed EUR transfer is settled on its own within seconds, and no settlement takes it', async () => {
  await setUpGrossCurrency();
  const [payer, payee] = EUR_DFSPS;
  const before = await balancesOfAll(EUR_DFSPS, 'EUR');
  const { transferId } = await committedTransfer({ from: payer, to: payee, amount: '25.5', currency: 'EUR' });
  const amount = parseAmount('25.5');

  const after = await pollUntil('the gross settlement of the transfer', async () => {
    const balances = await balancesOfAll(EUR_DFSPS, 'EUR');
    return balances.get(payer).SETTLEMENT !== before.get(payer).SETTLEMENT ? balances : undefined;
  });
  assert.equal(after.get(payer).POSITION, before.get(payer).POSITION, 'the payer\'s position is back where it was');
  assert.equal(after.get(payee).POSITION, before.get(payee).POSITION, 'the payee\'s position is back where it was');
  assert.equal(after.get(payer).SETTLEMENT, before.get(payer).SETTLEMENT + amount, 'the payer\'s deposit paid the amount');
  assert.equal(after.get(payee).SETTLEMENT, before.get(payee).SETTLEMENT - amount, 'the payee\'s deposit received it');
  const [recorded] = await sw.admin.db('settlement_window_transfer').where({ transfer_id: transferId });
  assert.ok(recorded.gross_settled_at, 'marked as settled gross');
  const reasons = await sw.admin.db('position_change').where({ transfer_id: transferId }).orderBy('id').pluck('reason');
  assert.deepEqual(reasons, ['PREPARE', 'COMMIT', 'GROSS_SETTLEMENT', 'GROSS_SETTLEMENT', 'GROSS_SETTLEMENT', 'GROSS_SETTLEMENT']);

  const windowId = recorded.settlement_window_id;
  assertRefused(await createSettlement([windowId], GROSS_MODEL), 'Settlement can not be created for GROSS or IMMEDIATE models');
  assert.equal((await closeWindow(windowId)).status, 200, 'a window holding only gross transfers closes');
  assert.deepEqual((await readWindow(windowId)).content, [], 'with no content to settle: EUR was settled already');
  assertRefused(await createSettlement([windowId]), `Inapplicable windows ${windowId}`);
});

test('a currency that turns gross later: a transfer already closed for a net settlement is never settled gross as well', async () => {
  // KES is settled by a default net model (no currency of its own) until an operator adds a
  // continuous gross model for KES: from then on KES transfers settle gross, and those the
  // last window closed for a net settlement stay with that settlement.
  for (const type of ['HUB_MULTILATERAL_SETTLEMENT', 'HUB_RECONCILIATION']) {
    assert.equal((await sw.admin.request('POST', '/participants/Hub/accounts', { type, currency: 'KES' })).status, 201);
  }
  const model = (name, fields) => sw.admin.request('POST', '/settlementModels', {
    name, settlementInterchange: 'MULTILATERAL', requireLiquidityCheck: true, ledgerAccountType: 'POSITION', settlementAccountType: 'SETTLEMENT',
    autoPositionReset: true, ...fields,
  });
  assert.equal((await model('DEFERREDNETDEFAULT', { settlementGranularity: 'NET', settlementDelay: 'DEFERRED' })).status, 201);
  for (const name of KES_DFSPS) {
    dfsps.set(name, await startTestDfsp({ name, switchUrl: sw.apiUrl }));
    accounts.set(name, await onboardDfsp(sw.admin.request, { name, currency: 'KES', endpointBase: dfsps.get(name).url, netDebitCap: '1000', fundsIn: '1000' }));
  }
  const [payer, payee] = KES_DFSPS;
  const netTransfer = await committedTransfer({ from: payer, to: payee, amount: '40', currency: 'KES' });
  const netWindowId = await openWindowId();
  assert.equal((await closeWindow(netWindowId)).status, 200);
  assert.deepEqual((await readWindow(netWindowId)).content.map((content) => content.currencyId), ['KES'], 'closed for a net settlement');
  const afterNet = await balancesOfAll(KES_DFSPS, 'KES');

  assert.equal((await model('CGSKES', { settlementGranularity: 'GROSS', settlementInterchange: 'BILATERAL', settlementDelay: 'IMMEDIATE', currency: 'KES' })).status, 201);
  const grossTransfer = await committedTransfer({ from: payer, to: payee, amount: '7', currency: 'KES' });
  await pollUntil('the gross settlement of the second transfer', async () => {
    const [row] = await sw.admin.db('settlement_window_transfer').where({ transfer_id: grossTransfer.transferId });
    return row?.gross_settled_at ? row : undefined;
  });
  const [netRow] = await sw.admin.db('settlement_window_transfer').where({ transfer_id: netTransfer.transferId });
  assert.equal(netRow.gross_settled_at, null, 'the transfer closed for a net settlement was left to it');
  const afterGross = await balancesOfAll(KES_DFSPS, 'KES');
  const seven = parseAmount('7');
  assert.equal(afterGross.get(payer).POSITION, afterNet.get(payer).POSITION, 'only the second transfer was reverted from the payer\'s position');
  assert.equal(afterGross.get(payer).SETTLEMENT, afterNet.get(payer).SETTLEMENT + seven, 'and only its amount left the payer\'s deposit');

  const settled = await createSettlement([netWindowId], 'DEFERREDNETDEFAULT');
  assert.equal(settled.status, 200, settled.text);
  assertNets(settled.body, new Map([[accounts.get(payer).positionAccountId, parseAmount('40')], [accounts.get(payee).positionAccountId, -parseAmount('40')]]), 'KES');
});

/** The settlement API's audit entries after `sinceId`, oldest first, as the admin API's GET /audit answers them. */
async function settlementAuditSince(sinceId) {
  const answer = await operatorClient(sw.admin.baseUrl, 'readOnly')('GET', '/audit?api=settlement&limit=1000');
  assert.equal(answer.status, 200, answer.text);
  return answer.body.filter((entry) => entry.id > sinceId).reverse();
}

test('every change asked of the settlement API is audited: refused and forbidden ones too, with what was asked, who, the error and the state refused against', async () => {
  const [latest] = (await operatorClient(sw.admin.baseUrl, 'readOnly')('GET', '/audit?limit=1')).body;
  const since = latest?.id ?? 0;
  const url = sw.urlOf('settlement-api');
  await committedTransfer({ from: 'alphafsp', to: 'betafsp', amount: '1.5' });
  const windowId = await openWindowId();
  const readOnly = operatorClient(url, 'readOnly');
  assert.equal((await readOnly('POST', `/v2/settlementWindows/${windowId}`, { state: 'CLOSED', reason: 'not mine to close' })).status, 403);
  const anonymous = await fetch(`${url}/v2/settlementWindows/${windowId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.equal(anonymous.status, 401, 'no token: refused, and not recorded (no one to record)');
  const malformed = await fetch(`${url}/v2/settlementWindows/${windowId}`, {
    method: 'POST', headers: { ...adminHeaders('readWrite'), 'content-type': 'application/json' }, body: '{"state": "CLOSED",',
  });
  assert.equal(malformed.status, 400);
  assert.equal((await closeWindow(windowId)).status, 200);
  assertRefused(await closeWindow(windowId), `Window ${windowId} is not open`);
  assertRefused(await createSettlement([windowId], 'NOSUCHMODEL'), 'Settlement model not found: NOSUCHMODEL');
  const created = await createSettlement([windowId]);
  assert.equal(created.status, 200, created.text);
  const early = await moveAccounts(created.body, 'PS_TRANSFERS_COMMITTED');
  assert.equal(early.status, 200, early.text);
  const aborted = await settlementApi('PUT', `/v2/settlements/${created.body.id}`, { state: 'ABORTED', reason: 'audit test' });
  assert.equal(aborted.status, 200, aborted.text);

  const entries = await settlementAuditSince(since);
  assert.deepEqual(entries.map((entry) => `${entry.method} ${entry.route} ${entry.status} ${entry.errorCode}`), [
    'POST /v2/settlementWindows/{id} 403 3000',
    'POST /v2/settlementWindows/{id} 400 3101',
    'POST /v2/settlementWindows/{id} 200 null',
    'POST /v2/settlementWindows/{id} 400 3100',
    'POST /v2/settlements 400 3100',
    'POST /v2/settlements 200 null',
    'PUT /v2/settlements/{id} 200 3000',
    'PUT /v2/settlements/{id} 200 null',
  ]);
  const [forbidden, unparsed, closed, notOpen, noModel, settled, refusedSteps, abort] = entries;
  assert.deepEqual(entries.map((entry) => entry.actor), ['operator:read-only', ...Array(7).fill('operator:read-write')]);
  assert.ok(entries.every((entry) => entry.api === 'settlement' && Date.now() - Date.parse(entry.occurredAt) < 120_000));

  assert.deepEqual(forbidden.request, { state: 'CLOSED', reason: 'not mine to close' }, 'what the read-only token asked');
  assert.match(forbidden.errorDescription, /does not carry the settlement:write scope/);
  assert.deepEqual([forbidden.before, forbidden.after], [null, null], 'refused before anything was read');
  assert.equal(unparsed.request, '{"state": "CLOSED",', 'a body that is not JSON is kept as its text');
  assert.deepEqual([unparsed.before.window.id, unparsed.before.window.state, unparsed.before.openWindowId], [windowId, 'OPEN', windowId], 'the window it was refused on');

  assert.deepEqual(closed.request, { state: 'CLOSED', reason: 'end of the test\'s business day' });
  assert.equal(closed.target, `/v2/settlementWindows/${windowId}`);
  assert.deepEqual([closed.before.window.state, closed.after.window.state], ['OPEN', 'CLOSED']);
  assert.ok(closed.after.openWindowId > windowId, 'the next window opened');
  assert.equal(notOpen.errorDescription, `Generic validation error - Window ${windowId} is not open`);
  assert.equal(notOpen.before.window.state, 'CLOSED', 'the state it was refused against');
  assert.deepEqual(notOpen.after, notOpen.before, 'a refusal changes nothing');

  assert.equal(noModel.request.settlementModel, 'NOSUCHMODEL');
  assert.deepEqual(noModel.before.windows, [{ id: windowId, state: 'CLOSED', content: [{ currency: 'USD', state: 'CLOSED', settlementId: null }] }]);
  assert.deepEqual(settled.after.windows, [{ id: windowId, state: 'PENDING_SETTLEMENT', content: [{ currency: 'USD', state: 'PENDING_SETTLEMENT', settlementId: created.body.id }] }]);

  assert.match(refusedSteps.errorDescription, /^account \d+: Generic client error - State change not allowed(; account \d+: Generic client error - State change not allowed)+$/);
  assert.equal(refusedSteps.request.participants.length, created.body.participants.length, 'what was asked, account by account');
  assert.equal(refusedSteps.before.settlement.state, 'PENDING_SETTLEMENT');
  assert.ok(refusedSteps.before.settlement.accounts.every((account) => account.state === 'PENDING_SETTLEMENT'));
  assert.deepEqual(refusedSteps.after, refusedSteps.before, 'no account moved');
  assert.deepEqual([abort.before.settlement.state, abort.after.settlement.state], ['PENDING_SETTLEMENT', 'ABORTED']);
  assert.deepEqual(abort.request, { state: 'ABORTED', reason: 'audit test' });
});
