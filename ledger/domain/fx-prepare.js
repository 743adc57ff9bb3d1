// The prepare handler's decision for a batch of POST /fxTransfers: a payer DFSP asks an FXP
// to convert, for the payment it names (determiningTransferId). Duplicates as for transfers
// (the hash of the request: same → the current state, changed → 3106), then validation (3100);
// a valid conversion goes on to reserve the payer's position in the source currency. The fx
// transfer is stored as a transfer of kind FX_TRANSFER whose transferId is its
// commitRequestId: payer = the initiating DFSP, payee = the FXP, amount and currency the
// source ones, with the target amount and currency beside them.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { isCondition } from './ilp.js';
import { parseAmount } from './money.js';
import { tellFx } from './outcomes.js';
import { classifyDuplicate } from './prepare.js';
import { receivedAtOf } from './received-at.js';
import { requestHash } from '../../platform/domain/request-hash.js';
import { TRANSFER_KIND, TRANSFER_STATE, isFinal, transition } from './transfer-states.js';

const S = TRANSFER_STATE;
const FX = TRANSFER_KIND.fxTransfer;

/** The position event that reserves a conversion's payer in the source currency. */
function fxReservation(row, message) {
  return { accountId: row.payerAccountId, action: 'fx-prepare', message, commitRequestId: row.transferId };
}

/**
 * `messages`: fx prepare events (`id` = commitRequestId) in consumption order. `existing`:
 * commitRequestId → stored fx transfer. `participants`: name → { isActive, positionAccounts:
 * Map(currency → { id, isActive }), currencyPairs?: Set('SRC/TGT') } for the initiating DFSPs
 * and FXPs named (an FXP with `currencyPairs` must serve the pair). `conversionsFor`:
 * determiningTransferId → a stored conversion naming it; `preparedTransferIds`: the determining
 * transfers already prepared. Returns rows to insert, position events and outcomes.
 */
export function decideFxPrepareBatch({ messages, existing, participants, conversionsFor = new Map(), preparedTransferIds = new Set(), now }) {
  const known = new Map(existing);
  const claimed = new Map(conversionsFor);
  const result = { inserts: [], positionEvents: [], outcomes: [] };
  for (const message of messages) {
    const hash = requestHash(message.body);
    const prior = known.get(message.id);
    if (prior) {
      const duplicate = classifyDuplicate(message, prior, hash, { teller: tellFx, reservation: fxReservation });
      result.outcomes.push(...duplicate.outcomes);
      if (duplicate.positionEvent) result.positionEvents.push(duplicate.positionEvent);
      continue;
    }
    const row = planFxTransfer(message, hash, participants, { now, claimed, preparedTransferIds });
    known.set(message.id, row);
    result.inserts.push(row);
    if (row.failure) {
      result.outcomes.push(tellFx.error(message.id, message.from, row.failure));
      continue;
    }
    claimed.set(row.determiningTransferId, row);
    result.positionEvents.push(fxReservation(row, message));
  }
  return result;
}

function planFxTransfer(message, hash, participants, { now, claimed, preparedTransferIds }) {
  const { body } = message;
  const source = { currency: body.sourceAmount?.currency, amount: parseAmount(body.sourceAmount?.amount, { allowZero: false }) };
  const target = { currency: body.targetAmount?.currency, amount: parseAmount(body.targetAmount?.amount, { allowZero: false }) };
  const payer = participants.get(body.initiatingFsp);
  const fxp = participants.get(body.counterPartyFsp);
  const reasons = [
    ...partyReasons(message, { payer, fxp, source, target }),
    ...termReasons(message, { source, target, receivedAt: receivedAtOf(message, now) }),
    ...determiningTransferReasons(message, { claimed, preparedTransferIds }),
  ];
  const row = {
    transferId: message.id,
    kind: FX,
    payerFsp: body.initiatingFsp,
    payeeFsp: body.counterPartyFsp,
    payerAccountId: payer?.positionAccounts.get(source.currency)?.id ?? null,
    payeeAccountId: fxp?.positionAccounts.get(source.currency)?.id ?? null,
    amount: typeof source.amount === 'bigint' ? source.amount : 0n,
    currency: source.currency ?? 'XXX',
    targetAmount: typeof target.amount === 'bigint' ? target.amount : 0n,
    targetCurrency: target.currency ?? 'XXX',
    determiningTransferId: body.determiningTransferId ?? null,
    ilpCondition: isCondition(body.condition) ? body.condition : null,
    expiresAt: Number.isNaN(Date.parse(body.expiration)) ? now : new Date(Date.parse(body.expiration)),
    requestHash: hash,
  };
  if (!reasons.length) return stored(row, transition(FX, null, S.receivedPrepare));
  const invalid = failure(FAILURE.validation, reasons.join(', '));
  return { ...stored(row, transition(FX, null, S.invalid)), reason: invalid.detail, failure: invalid };
}

function stored(row, statePath) {
  return { ...row, state: statePath.at(-1), statePath };
}

/**
 * The initiating DFSP sends it and holds an active account in the source currency; the FXP
 * is another active participant with active accounts in both currencies, serving the pair.
 */
function partyReasons(message, { payer, fxp, source, target }) {
  const { body } = message;
  const reasons = [];
  if (message.from !== body.initiatingFsp) reasons.push(`FSPIOP-Source ${message.from} does not match initiatingFsp ${body.initiatingFsp}`);
  if (body.initiatingFsp === body.counterPartyFsp) reasons.push('initiating and counterparty FSP are the same');
  const accounts = [['initiating', body.initiatingFsp, payer, [source.currency]], ['counterparty', body.counterPartyFsp, fxp, [...new Set([source.currency, target.currency])]]];
  for (const [role, name, participant, currencies] of accounts) {
    if (!participant) reasons.push(`${role} FSP ${name} is not a participant`);
    else if (!participant.isActive) reasons.push(`${role} FSP ${name} is not active`);
    else {
      for (const currency of currencies) {
        const account = participant.positionAccounts.get(currency);
        if (!account || !account.isActive) reasons.push(`${role} FSP ${name} has no active position account in ${currency}`);
      }
    }
  }
  if (fxp?.currencyPairs && !fxp.currencyPairs.has(`${source.currency}/${target.currency}`)) {
    reasons.push(`counterparty FSP ${body.counterPartyFsp} does not convert ${source.currency} to ${target.currency}`);
  }
  return reasons;
}

/** Two different currencies, both amounts positive decimals, a condition, a future expiry. */
function termReasons(message, { source, target, receivedAt }) {
  const { body } = message;
  const reasons = [];
  if (source.currency === target.currency) reasons.push(`source and target currency are both ${source.currency}`);
  for (const [name, { amount }] of [['sourceAmount', source], ['targetAmount', target]]) {
    if (typeof amount !== 'bigint') reasons.push(`${name}: ${amount.detail}`);
  }
  if (!isCondition(body.condition)) reasons.push('condition is not 32 bytes of base64url');
  const expiresAtMs = Date.parse(body.expiration);
  if (Number.isNaN(expiresAtMs)) reasons.push('expiration is not a date');
  else if (expiresAtMs <= receivedAt.getTime()) reasons.push(`expiration ${body.expiration} is in the past`);
  return reasons;
}

/**
 * A conversion comes before the payment it is for, and a payment has one conversion at a
 * time (payer-side conversion): one that was refused or expired makes way for a new one,
 * one that may still commit (or has) does not.
 */
function determiningTransferReasons(message, { claimed, preparedTransferIds }) {
  const { determiningTransferId } = message.body;
  if (typeof determiningTransferId !== 'string' || determiningTransferId === '') return ['determiningTransferId is missing'];
  if (determiningTransferId === message.id) return ['determiningTransferId is the commitRequestId'];
  if (preparedTransferIds.has(determiningTransferId)) return [`transfer ${determiningTransferId} was already prepared`];
  const other = claimed.get(determiningTransferId);
  if (other && other.transferId !== message.id && (!isFinal(other.state) || other.state === S.committed)) {
    return [`transfer ${determiningTransferId} already has conversion ${other.transferId}`];
  }
  return [];
}
