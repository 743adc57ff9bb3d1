// An in-memory stand-in for the ledger's tables, driven only by the pure decisions, for the
// conversion tests: every decision's updates and position changes are applied as the
// handlers apply them. The position step is given only the positions its events name (the
// accounts the position handler reads locked), so a decision that moved any other account
// would fail here as it would fail the handler.
import { createHash, randomBytes } from 'node:crypto';
import { decidePrepareBatch } from '../../ledger/domain/prepare.js';
import { decideFxPrepareBatch } from '../../ledger/domain/fx-prepare.js';
import { decidePositionBatch } from '../../ledger/domain/position-batch.js';
import { decideFulfilBatch } from '../../ledger/domain/fulfil.js';
import { decideFxFulfilBatch } from '../../ledger/domain/fx-fulfil.js';
import { decideExpiries } from '../../ledger/domain/expiry.js';
import { planPositionChanges } from '../../ledger/domain/position.js';
import { TRANSFER_KIND, TRANSFER_STATE as S, isFinal } from '../../ledger/domain/transfer-states.js';

export const ACCOUNT = Object.freeze({ payerUsd: 1, fxpUsd: 11, fxpEur: 12, payeeEur: 21 });

export function secretPair() {
  const fulfilment = randomBytes(32).toString('base64url');
  return { fulfilment, condition: createHash('sha256').update(Buffer.from(fulfilment, 'base64url')).digest('base64url') };
}

const account = (id) => ({ id, isActive: true });

export function participants() {
  return new Map([
    ['payerfsp', { isActive: true, positionAccounts: new Map([['USD', account(ACCOUNT.payerUsd)]]) }],
    ['fxp', { isActive: true, positionAccounts: new Map([['USD', account(ACCOUNT.fxpUsd)], ['EUR', account(ACCOUNT.fxpEur)]]), currencyPairs: new Set(['USD/EUR']) }],
    ['payeefsp', { isActive: true, positionAccounts: new Map([['EUR', account(ACCOUNT.payeeEur)]]) }],
  ]);
}

export function fxPrepareMessage(id, { transferId, condition, expiration, ...overrides }) {
  const body = {
    commitRequestId: id, determiningTransferId: transferId, initiatingFsp: 'payerfsp', counterPartyFsp: 'fxp', amountType: 'SEND',
    sourceAmount: { currency: 'USD', amount: '100' }, targetAmount: { currency: 'EUR', amount: '90' }, condition, expiration, ...overrides,
  };
  return { id, type: 'fxTransfer', action: 'fx-prepare', from: overrides.from ?? body.initiatingFsp, to: body.counterPartyFsp, headers: {}, body };
}

export function transferPrepareMessage(id, { condition, expiration, ...overrides }) {
  const body = { transferId: id, payerFsp: 'payerfsp', payeeFsp: 'payeefsp', amount: { currency: 'EUR', amount: '90' }, ilpPacket: 'AYIB', condition, expiration, ...overrides };
  return { id, type: 'transfer', action: 'prepare', from: overrides.from ?? body.payerFsp, to: body.payeeFsp, headers: {}, body };
}

/**
 * The ledger: `records` by id (payments and conversions, as the transfer table holds them),
 * positions, liquidity (settlement values by position account) and net debit caps.
 */
export function createConversionLedger({ now, liquidity = 1_000_000_000n, limit = 1_000_000_000n }) {
  const records = new Map();
  const positions = new Map(Object.values(ACCOUNT).map((id) => [id, 0n]));
  const settlements = new Map(Object.values(ACCOUNT).map((id) => [id, -liquidity]));
  const limits = new Map(Object.values(ACCOUNT).map((id) => [id, limit]));
  const journal = [];

  function applyUpdates(stateUpdates) {
    for (const { transferId, statePath, ...fields } of stateUpdates) {
      const record = records.get(transferId);
      records.set(transferId, { ...record, ...fields, state: statePath.at(-1), journal: [...(record.journal ?? []), ...statePath] });
    }
  }

  function insert(rows) {
    for (const { statePath, ...row } of rows) records.set(row.transferId, { ...row, journal: [...statePath] });
  }

  /** determiningTransferId → the conversion naming it that may still commit (or the latest). */
  function conversionsByDeterminingTransfer() {
    const found = new Map();
    for (const record of records.values()) {
      if (record.kind !== TRANSFER_KIND.fxTransfer || !record.determiningTransferId) continue;
      const other = found.get(record.determiningTransferId);
      const live = !isFinal(record.state) || record.state === S.committed;
      if (!other || live) found.set(record.determiningTransferId, record);
    }
    return found;
  }

  return {
    records, positions, settlements, limits, journal,
    fxPrepare(messages, at = now) {
      const decided = decideFxPrepareBatch({
        messages, existing: records, participants: participants(), now: at,
        conversionsFor: conversionsByDeterminingTransfer(),
        preparedTransferIds: new Set([...records.values()].filter((record) => record.kind === TRANSFER_KIND.payment).map((record) => record.transferId)),
      });
      insert(decided.inserts);
      return decided;
    },
    prepare(messages, at = now) {
      const conversions = new Map([...conversionsByDeterminingTransfer()].filter(([id]) => messages.some((message) => message.id === id)));
      const decided = decidePrepareBatch({ messages, existing: records, participants: participants(), now: at, conversions });
      insert(decided.inserts);
      return decided;
    },
    /** One position batch: only the accounts its events name are read (locked). */
    position(events, at = now) {
      const named = new Set(events.flatMap((event) => [event.accountId, ...(event.linkedAccountIds ?? [])]));
      const locked = new Map([...positions].filter(([id]) => named.has(id)));
      const decided = decidePositionBatch({ events, transfers: records, positions: locked, settlements, limits, now: at });
      const plan = planPositionChanges(locked, decided.positionChanges);
      for (const [id, value] of plan.finalValues) positions.set(id, value);
      journal.push(...plan.journal);
      applyUpdates(decided.stateUpdates);
      return decided;
    },
    fxFulfil(events, at = now) {
      const decided = decideFxFulfilBatch({ events, transfers: records, now: at });
      applyUpdates(decided.stateUpdates);
      return decided;
    },
    fulfil(events, at = now) {
      const decided = decideFulfilBatch({ events, transfers: records, now: at });
      applyUpdates(decided.stateUpdates);
      return decided;
    },
    /** The timeout handler's claim at `at`: the given ids, with what each is linked to. */
    expire(ids, at) {
      const claimed = ids.map((id) => records.get(id));
      const decided = decideExpiries({ transfers: claimed, now: at, linked: records });
      applyUpdates(decided.stateUpdates);
      return decided;
    },
    /** Each currency's positions add up to zero: money is conserved per currency. */
    sumByCurrency() {
      const currencyOf = { [ACCOUNT.payerUsd]: 'USD', [ACCOUNT.fxpUsd]: 'USD', [ACCOUNT.fxpEur]: 'EUR', [ACCOUNT.payeeEur]: 'EUR' };
      const sums = { USD: 0n, EUR: 0n };
      for (const [id, value] of positions) sums[currencyOf[id]] += value;
      return sums;
    },
  };
}
