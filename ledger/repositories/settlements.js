// Settlement windows and settlements in MySQL (knex, in the caller's transaction). Rows are
// mapped to plain values here; decisions live in ledger/domain/settlement-windows.js and
// settlements.js. Amounts are scaled BigInt, read from DECIMAL text.
import { amountFromColumn, amountToColumn } from '../domain/money.js';

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

async function recordWindowState(trx, windowIds, state, reason, now) {
  if (windowIds.length === 0) return;
  await trx('settlement_window').whereIn('id', windowIds).update({ state, reason, changed_at: now });
  await trx('settlement_window_state_change').insert(windowIds.map((id) => ({ settlement_window_id: id, state, reason, created_at: now })));
}

/** Closes window `id` with its content rows and opens the next one; returns the new window's id. */
export async function closeWindowAndOpenNext(trx, { id, reason, contentRows, now }) {
  await recordWindowState(trx, [id], 'CLOSED', reason, now);
  if (contentRows.length > 0) {
    await trx('settlement_window_content').insert(contentRows.map((content) => ({
      settlement_window_id: id, settlement_model_id: content.settlementModelId, currency: content.currency, ledger_account_type: 'POSITION',
      state: 'CLOSED', settlement_id: null,
      transfer_count: content.transferCount, amount: amountToColumn(content.amount), created_at: now, changed_at: now,
    })));
  }
  const [nextId] = await trx('settlement_window').insert({ state: 'OPEN', reason, created_at: now, changed_at: now });
  await trx('settlement_window_state_change').insert({ settlement_window_id: nextId, state: 'OPEN', reason, created_at: now });
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
 * The committed transfers of the given window content not settled gross already (the
 * currency's model may have changed since), summed per payer, payee and currency
 * (the settlement's net amounts follow from these; netSettlementAmounts in the domain).
 */
export async function transferSumsOfContent(trx, content) {
  const sums = [];
  for (const item of content) {
    const rows = await trx('settlement_window_transfer').where({ settlement_window_id: item.settlementWindowId, currency: item.currency })
      .whereNull('gross_settled_at').select('payer_account_id', 'payee_account_id', 'currency').sum({ amount: 'amount' }).groupBy('payer_account_id', 'payee_account_id', 'currency');
    sums.push(...rows.map((row) => ({
      payerAccountId: Number(row.payer_account_id), payeeAccountId: Number(row.payee_account_id), currency: row.currency, amount: amountFromColumn(row.amount),
    })));
  }
  return sums;
}

/** participant id of each position account. */
export async function participantsOfAccounts(db, accountIds) {
  if (accountIds.length === 0) return new Map();
  const rows = await db('account').whereIn('id', accountIds).select('id', 'participant_id');
  return new Map(rows.map((row) => [Number(row.id), Number(row.participant_id)]));
}

export async function insertSettlement(trx, { modelId, reason, windowIds, content, accounts, now }) {
  const [id] = await trx('settlement').insert({ settlement_model_id: modelId, state: 'PENDING_SETTLEMENT', reason, created_at: now, changed_at: now });
  await trx('settlement_state_change').insert({ settlement_id: id, state: 'PENDING_SETTLEMENT', reason, created_at: now });
  await trx('settlement_settlement_window').insert(windowIds.map((windowId) => ({ settlement_id: id, settlement_window_id: windowId })));
  await trx('settlement_window_content').whereIn('id', content.map((item) => item.id))
    .update({ state: 'PENDING_SETTLEMENT', settlement_id: id, changed_at: now });
  const moving = windowIds.filter((windowId) => content.some((item) => item.settlementWindowId === windowId));
  const pending = await trx('settlement_window').whereIn('id', moving).whereNot('state', 'PENDING_SETTLEMENT').pluck('id');
  await recordWindowState(trx, pending.map(Number), 'PENDING_SETTLEMENT', reason, now);
  if (accounts.length > 0) {
    await trx('settlement_participant_account').insert(accounts.map((account) => ({
      settlement_id: id, account_id: account.accountId, participant_id: account.participantId, currency: account.currency,
      net_amount: amountToColumn(account.netAmount), state: 'PENDING_SETTLEMENT', reason, created_at: now, changed_at: now,
    })));
    await insertAccountStateChanges(trx, id, accounts.map((account) => ({ ...account, state: 'PENDING_SETTLEMENT', reason })), now);
  }
  return Number(id);
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
  const accounts = await db('settlement_participant_account').where({ settlement_id: id }).orderBy('account_id');
  const windowIds = await db('settlement_settlement_window').where({ settlement_id: id }).orderBy('settlement_window_id').pluck('settlement_window_id');
  return { ...toSettlement(row), accounts: new Map(accounts.map((account) => [Number(account.account_id), toAccount(account)])), windowIds: windowIds.map(Number) };
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

/** Applies accepted account changes and, when it moves, the settlement's own state. */
export async function recordSettlementProgress(trx, { settlementId, changes, nextState, now }) {
  for (const change of changes) {
    await trx('settlement_participant_account').where({ settlement_id: settlementId, account_id: change.accountId })
      .update({ state: change.state, reason: change.reason ?? null, external_reference: change.externalReference ?? null, changed_at: now });
  }
  await insertAccountStateChanges(trx, settlementId, changes, now);
  if (nextState) await recordSettlementState(trx, settlementId, nextState.state, nextState.reason, now);
}

export async function recordSettlementState(trx, settlementId, state, reason, now) {
  await trx('settlement').where({ id: settlementId }).update({ state, reason, changed_at: now });
  await trx('settlement_state_change').insert({ settlement_id: settlementId, state, reason, created_at: now });
}

/** The settlement's content and windows follow it to SETTLED or ABORTED. */
export async function finishSettlementWindows(trx, { settlementId, windowIds, state, reason, now }) {
  await trx('settlement_window_content').where({ settlement_id: settlementId }).update({ state, changed_at: now });
  // A window is SETTLED once all of its content is; an aborted settlement gives its windows back.
  const finished = [];
  for (const windowId of windowIds) {
    const open = await trx('settlement_window_content').where({ settlement_window_id: windowId }).whereNot('state', state).first('id');
    if (state === 'ABORTED' || !open) finished.push(windowId);
  }
  await recordWindowState(trx, finished, state, reason, now);
}

/** Every account of a settlement moves to ABORTED with the settlement. */
export async function abortSettlementAccounts(trx, { settlementId, accountIds, reason, now }) {
  await trx('settlement_participant_account').where({ settlement_id: settlementId }).update({ state: 'ABORTED', reason, changed_at: now });
  await insertAccountStateChanges(trx, settlementId, accountIds.map((accountId) => ({ accountId, state: 'ABORTED', reason })), now);
}

/**
 * The accounts a settlement's position reset touches besides the position account: the
 * participant's settlement account and the hub's multilateral settlement account in the
 * same currency. Returns positionAccountId → { settlementAccountId, hubAccountId }.
 */
export async function settlementCounterAccounts(db, { positionAccountIds, hubName }) {
  if (positionAccountIds.length === 0) return new Map();
  const rows = await db('account as p')
    .join('account as s', function sameOwner() { this.on('s.participant_id', 'p.participant_id').andOn('s.currency', 'p.currency').andOnVal('s.type', 'SETTLEMENT'); })
    .join('participant as hub', 'hub.name', db.raw('?', [hubName]))
    .leftJoin('account as h', function hubAccount() { this.on('h.participant_id', 'hub.id').andOn('h.currency', 'p.currency').andOnVal('h.type', 'HUB_MULTILATERAL_SETTLEMENT'); })
    .whereIn('p.id', positionAccountIds).select('p.id as position_id', 's.id as settlement_id', 'h.id as hub_id');
  return new Map(rows.map((row) => [Number(row.position_id), { settlementAccountId: Number(row.settlement_id), hubAccountId: row.hub_id === null ? null : Number(row.hub_id) }]));
}
