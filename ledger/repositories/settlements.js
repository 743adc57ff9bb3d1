// Settlement windows and settlements in MySQL (knex, in the caller's transaction). Rows are
// mapped to plain values here; every decision (which state follows, which windows and content
// a settlement takes, which windows follow it) is taken in ledger/domain/settlement-windows.js
// and settlements.js, and the states written are the ones the caller passes from there. Every
// query reads or writes a set: the number of statements does not grow with the number of
// windows, content rows or accounts. Amounts are scaled BigInt, read from DECIMAL text.
import { amountFromColumn, amountToColumn } from '../domain/money.js';
import { ACCOUNT_TYPE } from '../domain/participants.js';

const toWindow = (row) => ({ id: Number(row.id), state: row.state, reason: row.reason, createdAt: row.created_at, changedAt: row.changed_at });
const toContent = (row) => ({
  id: Number(row.id), settlementWindowId: Number(row.settlement_window_id), settlementModelId: Number(row.settlement_model_id),
  currency: row.currency, ledgerAccountType: row.ledger_account_type,
  state: row.state, settlementId: row.settlement_id === null ? null : Number(row.settlement_id), createdAt: row.created_at, changedAt: row.changed_at,
});

/** The open window's id, with the pointer row locked for update (closing) or not locked (reading). */
export async function openWindowId(trx, { forUpdate = false } = {}) {
  const query = trx('settlement_window_open').where({ id: 1 }).first('settlement_window_id');
  const row = await (forUpdate ? query.forUpdate() : query);
  return Number(row.settlement_window_id);
}

export async function findWindow(db, id, { forUpdate = false } = {}) {
  const query = db('settlement_window').where({ id }).first();
  const row = await (forUpdate ? query.forUpdate() : query);
  return row ? toWindow(row) : undefined;
}

/**
 * What a window holds, per currency: [{ currency, transferCount, amount }]; `grossSettled:
 * false` leaves out the transfers a continuous gross model has settled already (a window's
 * content for a deferred settlement). The index on (window, currency, gross_settled_at,
 * amount) answers it from the index alone.
 */
export async function windowTotals(db, windowId, { grossSettled = true } = {}) {
  const query = db('settlement_window_transfer').where({ settlement_window_id: windowId });
  if (!grossSettled) query.whereNull('gross_settled_at');
  const rows = await query.select('currency').count({ n: '*' }).sum({ amount: 'amount' }).groupBy('currency');
  return rows.map((row) => ({ currency: row.currency, transferCount: Number(row.n), amount: amountFromColumn(row.amount) }));
}

/** Windows `windowIds` move to `state`, with one journal row each. */
export async function recordWindowState(trx, { windowIds, state, reason, now }) {
  if (windowIds.length === 0) return;
  await trx('settlement_window').whereIn('id', windowIds).update({ state, reason, changed_at: now });
  await trx('settlement_window_state_change').insert(windowIds.map((id) => ({ settlement_window_id: id, state, reason, created_at: now })));
}

/**
 * Window `id` moves to `closedState` with its content rows (closedWindowContent in the
 * domain) and the next window opens in `openState`; returns the new window's id.
 */
export async function closeWindowAndOpenNext(trx, { id, closedState, openState, reason, contentRows, now }) {
  await recordWindowState(trx, { windowIds: [id], state: closedState, reason, now });
  if (contentRows.length > 0) {
    await trx('settlement_window_content').insert(contentRows.map((content) => ({
      settlement_window_id: id, settlement_model_id: content.settlementModelId, currency: content.currency, ledger_account_type: content.ledgerAccountType,
      state: content.state, settlement_id: null,
      transfer_count: content.transferCount, amount: amountToColumn(content.amount), created_at: now, changed_at: now,
    })));
  }
  const [nextId] = await trx('settlement_window').insert({ state: openState, reason, created_at: now, changed_at: now });
  await trx('settlement_window_state_change').insert({ settlement_window_id: nextId, state: openState, reason, created_at: now });
  await trx('settlement_window_open').where({ id: 1 }).update({ settlement_window_id: nextId });
  return Number(nextId);
}

/**
 * Windows with their content. `filters`: { ids?, state?, fromDateTime?, toDateTime?,
 * participantId?, currency? }; a participant or currency filter keeps the windows holding a
 * transfer of that participant or currency. Newest change first, as central-settlement lists them.
 */
export async function findWindows(db, filters, { forUpdate = false } = {}) {
  const query = db('settlement_window as w').select('w.*').orderBy([{ column: 'w.changed_at', order: 'desc' }, { column: 'w.id', order: 'desc' }]);
  if (filters.ids) query.whereIn('w.id', filters.ids);
  if (filters.state) query.where('w.state', filters.state);
  if (filters.fromDateTime) query.where('w.created_at', '>=', filters.fromDateTime);
  if (filters.toDateTime) query.where('w.created_at', '<=', filters.toDateTime);
  if (filters.currency || filters.participantId) {
    query.whereExists(function holdsTransfer() {
      this.select(db.raw('1')).from('settlement_window_transfer as t').whereRaw('t.settlement_window_id = w.id');
      if (filters.currency) this.where('t.currency', filters.currency);
      if (filters.participantId) {
        this.whereExists(function ofParticipant() {
          this.select(db.raw('1')).from('account as a').where('a.participant_id', filters.participantId)
            .whereRaw('(a.id = t.payer_account_id OR a.id = t.payee_account_id)');
        });
      }
    });
  }
  const rows = await (forUpdate ? query.forUpdate() : query);
  const windows = rows.map(toWindow);
  const content = await contentOfWindows(db, windows.map((window) => window.id), { forUpdate });
  return windows.map((window) => ({ ...window, content: content.filter((item) => item.settlementWindowId === window.id) }));
}

async function contentOfWindows(db, windowIds, { forUpdate = false } = {}) {
  if (windowIds.length === 0) return [];
  const query = db('settlement_window_content').whereIn('settlement_window_id', windowIds).orderBy('id');
  return (await (forUpdate ? query.forUpdate() : query)).map(toContent);
}

/**
 * The committed transfers of the window content `contentIds` not settled gross already (the
 * currency's model may have changed since), summed per payer, payee and currency over all of
 * that content in one query (the settlement's net amounts follow from these;
 * netSettlementAmounts in the domain).
 */
export async function transferSumsOfContent(trx, contentIds) {
  if (contentIds.length === 0) return [];
  const rows = await trx('settlement_window_content as c')
    .join('settlement_window_transfer as t', function ofContent() { this.on('t.settlement_window_id', 'c.settlement_window_id').andOn('t.currency', 'c.currency'); })
    .whereIn('c.id', contentIds).whereNull('t.gross_settled_at')
    .select('t.payer_account_id', 't.payee_account_id', 't.currency').sum({ amount: 't.amount' }).groupBy('t.payer_account_id', 't.payee_account_id', 't.currency');
  return rows.map((row) => ({
    payerAccountId: Number(row.payer_account_id), payeeAccountId: Number(row.payee_account_id), currency: row.currency, amount: amountFromColumn(row.amount),
  }));
}

/** participant id of each position account. */
export async function participantsOfAccounts(db, accountIds) {
  if (accountIds.length === 0) return new Map();
  const rows = await db('account').whereIn('id', accountIds).select('id', 'participant_id');
  return new Map(rows.map((row) => [Number(row.id), Number(row.participant_id)]));
}

/** A new settlement in `state` over the windows `windowIds`; returns its id. */
export async function insertSettlement(trx, { modelId, state, reason, windowIds, now }) {
  const [id] = await trx('settlement').insert({ settlement_model_id: modelId, state, reason, created_at: now, changed_at: now });
  await trx('settlement_state_change').insert({ settlement_id: id, state, reason, created_at: now });
  await trx('settlement_settlement_window').insert(windowIds.map((windowId) => ({ settlement_id: id, settlement_window_id: windowId })));
  return Number(id);
}

/** The window content `contentIds` is taken by settlement `settlementId`, in `state`. */
export async function assignContentToSettlement(trx, { contentIds, settlementId, state, now }) {
  if (contentIds.length === 0) return;
  await trx('settlement_window_content').whereIn('id', contentIds).update({ state, settlement_id: settlementId, changed_at: now });
}

/** A new settlement's accounts (newSettlementAccounts in the domain), each in its own state. */
export async function insertSettlementAccounts(trx, { settlementId, accounts, reason, now }) {
  if (accounts.length === 0) return;
  await trx('settlement_participant_account').insert(accounts.map((account) => ({
    settlement_id: settlementId, account_id: account.accountId, participant_id: account.participantId, currency: account.currency,
    net_amount: amountToColumn(account.netAmount), state: account.state, reason, created_at: now, changed_at: now,
  })));
  await insertAccountStateChanges(trx, settlementId, accounts.map((account) => ({ ...account, reason })), now);
}

async function insertAccountStateChanges(trx, settlementId, changes, now) {
  if (changes.length === 0) return;
  await trx('settlement_participant_account_state_change').insert(changes.map((change) => ({
    settlement_id: settlementId, account_id: change.accountId, state: change.state, reason: change.reason ?? null,
    external_reference: change.externalReference ?? null, created_at: now,
  })));
}

const toSettlement = (row) => ({
  id: Number(row.id), modelId: Number(row.settlement_model_id), state: row.state, reason: row.reason, createdAt: row.created_at, changedAt: row.changed_at,
});
const toAccount = (row) => ({
  accountId: Number(row.account_id), participantId: Number(row.participant_id), currency: row.currency, netAmount: amountFromColumn(row.net_amount),
  state: row.state, reason: row.reason, externalReference: row.external_reference, createdAt: row.created_at, changedAt: row.changed_at,
});

/** A settlement with its accounts (Map by account id) and window ids; undefined when unknown. */
export async function findSettlement(db, id, { forUpdate = false } = {}) {
  const query = db('settlement').where({ id }).first();
  const row = await (forUpdate ? query.forUpdate() : query);
  if (!row) return undefined;
  const [settlement] = await withAccountsAndWindows(db, [toSettlement(row)]);
  return settlement;
}

/** The settlements `ids` (findSettlement's shape), in id order, in three queries however many there are. */
export async function findSettlements(db, ids) {
  if (ids.length === 0) return [];
  const rows = await db('settlement').whereIn('id', ids).orderBy('id');
  return withAccountsAndWindows(db, rows.map(toSettlement));
}

async function withAccountsAndWindows(db, settlements) {
  const ids = settlements.map((settlement) => settlement.id);
  const accounts = await db('settlement_participant_account').whereIn('settlement_id', ids).orderBy(['settlement_id', 'account_id']);
  const links = await db('settlement_settlement_window').whereIn('settlement_id', ids).orderBy(['settlement_id', 'settlement_window_id']);
  return settlements.map((settlement) => ({
    ...settlement,
    accounts: new Map(accounts.filter((account) => Number(account.settlement_id) === settlement.id).map((account) => [Number(account.account_id), toAccount(account)])),
    windowIds: links.filter((link) => Number(link.settlement_id) === settlement.id).map((link) => Number(link.settlement_window_id)),
  }));
}

/**
 * Settlement ids by central-settlement's filters: { state, fromDateTime, toDateTime, currency,
 * settlementWindowId, fromSettlementWindowDateTime, toSettlementWindowDateTime, participantId, accountId }.
 */
export async function findSettlementIds(db, filters) {
  const query = db('settlement as s').distinct('s.id').orderBy('s.id');
  if (filters.state) query.where('s.state', filters.state);
  if (filters.fromDateTime) query.where('s.created_at', '>=', filters.fromDateTime);
  if (filters.toDateTime) query.where('s.created_at', '<=', filters.toDateTime);
  if (filters.currency || filters.participantId || filters.accountId) {
    query.join('settlement_participant_account as spa', 'spa.settlement_id', 's.id');
    if (filters.currency) query.where('spa.currency', filters.currency);
    if (filters.participantId) query.where('spa.participant_id', filters.participantId);
    if (filters.accountId) query.where('spa.account_id', filters.accountId);
  }
  if (filters.settlementWindowId || filters.fromSettlementWindowDateTime || filters.toSettlementWindowDateTime) {
    query.join('settlement_settlement_window as ssw', 'ssw.settlement_id', 's.id').join('settlement_window as w', 'w.id', 'ssw.settlement_window_id');
    if (filters.settlementWindowId) query.where('w.id', filters.settlementWindowId);
    if (filters.fromSettlementWindowDateTime) query.where('w.created_at', '>=', filters.fromSettlementWindowDateTime);
    if (filters.toSettlementWindowDateTime) query.where('w.created_at', '<=', filters.toSettlementWindowDateTime);
  }
  return (await query.limit(1000)).map((row) => Number(row.id));
}

/**
 * Applies accepted account changes (each account at most once, with its own state, reason
 * and external reference) in one statement, and, when it moves, the settlement's own state.
 */
export async function recordSettlementProgress(trx, { settlementId, changes, nextState, now }) {
  if (changes.length > 0) {
    const perAccount = (field) => trx.raw(
      `CASE account_id ${changes.map(() => 'WHEN ? THEN ?').join(' ')} END`,
      changes.flatMap((change) => [change.accountId, change[field] ?? null]),
    );
    await trx('settlement_participant_account').where({ settlement_id: settlementId }).whereIn('account_id', changes.map((change) => change.accountId))
      .update({ state: perAccount('state'), reason: perAccount('reason'), external_reference: perAccount('externalReference'), changed_at: now });
  }
  await insertAccountStateChanges(trx, settlementId, changes, now);
  if (nextState) await recordSettlementState(trx, { settlementId, state: nextState.state, reason: nextState.reason, now });
}

export async function recordSettlementState(trx, { settlementId, state, reason, now }) {
  await trx('settlement').where({ id: settlementId }).update({ state, reason, changed_at: now });
  await trx('settlement_state_change').insert({ settlement_id: settlementId, state, reason, created_at: now });
}

/**
 * A settlement's content and windows follow it as decideWindowsAfterSettlement decided:
 * { state, contentIds, windowIds }.
 */
export async function recordWindowsAfterSettlement(trx, { windowsAfter, reason, now }) {
  const { state, contentIds, windowIds } = windowsAfter;
  if (contentIds.length > 0) await trx('settlement_window_content').whereIn('id', contentIds).update({ state, changed_at: now });
  await recordWindowState(trx, { windowIds, state, reason, now });
}

/** The accounts `accountIds` of a settlement move to `state` together (an abort). */
export async function recordAccountsState(trx, { settlementId, accountIds, state, reason, now }) {
  if (accountIds.length === 0) return;
  await trx('settlement_participant_account').where({ settlement_id: settlementId }).whereIn('account_id', accountIds).update({ state, reason, changed_at: now });
  await insertAccountStateChanges(trx, settlementId, accountIds.map((accountId) => ({ accountId, state, reason })), now);
}

/** Settlements not in `excludedStates`, counted per state. */
export async function countSettlementsByState(db, { excludedStates }) {
  const rows = await db('settlement').whereNotIn('state', excludedStates).select('state').count({ n: '*' }).groupBy('state');
  return rows.map((row) => ({ state: row.state, count: Number(row.n) }));
}

/**
 * The accounts a settlement's position reset touches besides the position account: the
 * participant's settlement account and the hub's multilateral settlement account in the
 * same currency. Returns positionAccountId → { settlementAccountId, hubAccountId }.
 */
export async function settlementCounterAccounts(db, { positionAccountIds, hubName }) {
  if (positionAccountIds.length === 0) return new Map();
  const rows = await db('account as p')
    .join('account as s', function sameOwner() { this.on('s.participant_id', 'p.participant_id').andOn('s.currency', 'p.currency').andOnVal('s.type', ACCOUNT_TYPE.settlement); })
    .join('participant as hub', 'hub.name', db.raw('?', [hubName]))
    .leftJoin('account as h', function hubAccount() { this.on('h.participant_id', 'hub.id').andOn('h.currency', 'p.currency').andOnVal('h.type', ACCOUNT_TYPE.hubMultilateralSettlement); })
    .whereIn('p.id', positionAccountIds).select('p.id as position_id', 's.id as settlement_id', 'h.id as hub_id');
  return new Map(rows.map((row) => [Number(row.position_id), { settlementAccountId: Number(row.settlement_id), hubAccountId: row.hub_id === null ? null : Number(row.hub_id) }]));
}

/** Every currency an account is held in. */
export async function accountCurrencies(db) {
  return db('account').distinct('currency').pluck('currency');
}

/**
 * Claims up to `batchSizeMax` transfers in `currency` not settled gross yet, locked and
 * skipping rows another replica holds (FOR UPDATE SKIP LOCKED). A transfer whose window
 * content exists was closed under a deferred net model (the currency has turned gross
 * since): a settlement takes it, never the gross sweep as well.
 */
export async function claimGrossSettleableTransfers(trx, { currency, batchSizeMax }) {
  const rows = await trx('settlement_window_transfer as t').where({ 't.currency': currency }).whereNull('t.gross_settled_at')
    .whereNotExists(function closedForNetSettlement() {
      this.select(trx.raw('1')).from('settlement_window_content as c').whereRaw('c.settlement_window_id = t.settlement_window_id AND c.currency = t.currency');
    })
    .select('t.*').limit(batchSizeMax).forUpdate().skipLocked();
  return rows.map((row) => ({
    transferId: row.transfer_id, payerAccountId: Number(row.payer_account_id), payeeAccountId: Number(row.payee_account_id), amount: amountFromColumn(row.amount),
  }));
}

export async function markGrossSettled(trx, { transferIds, now }) {
  await trx('settlement_window_transfer').whereIn('transfer_id', transferIds).update({ gross_settled_at: now });
}
