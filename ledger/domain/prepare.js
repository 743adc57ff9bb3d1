// The prepare handler's decision for a batch of POST /transfers: duplicates first (by the
// hash of the request), then validation; valid transfers go on to the payer's position. A
// payment a conversion is for (ledger/domain/conversions.js) goes to its FXP's position in the
// target currency instead.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { conversionRelease, conversionToRelease, dependentTransferReasons, withConversion } from './conversions.js';
import { isCondition } from './ilp.js';
import { parseAmount } from './money.js';
import { receivedAtOf } from './received-at.js';
import { tell } from './outcomes.js';
import { requestHash } from '../../platform/domain/request-hash.js';
import { TRANSFER_KIND, TRANSFER_STATE, canTransition, isFinal, transition } from './transfer-states.js';

const S = TRANSFER_STATE;

/**
 * `messages`: prepare events in consumption order. `existing`: transferId → stored transfer.
 * `participants`: name → { isActive, positionAccounts: Map(currency → { id, isActive }) }.
 * `onUsAllowed`: whether a payer FSP may also be the payee FSP (off by default, as in Mojaloop).
 * `conversions`: transferId → the fx transfer whose determiningTransferId it is, with its FXP
 * among `participants`. Returns rows to insert, events for the position handler, and who
 * must be told what.
 */
export function decidePrepareBatch({ messages, existing, participants, now, onUsAllowed = false, conversions = new Map() }) {
  const known = new Map(existing);
  const byCommitRequestId = new Map([...conversions.values()].map((conversion) => [conversion.transferId, conversion]));
  const reservation = (row, message) => withConversion({ accountId: row.payerAccountId, action: 'prepare', message }, row, byCommitRequestId);
  const result = { inserts: [], positionEvents: [], outcomes: [] };
  for (const message of messages) {
    const hash = requestHash(message.body);
    const prior = known.get(message.id);
    if (prior) {
      const duplicate = classifyDuplicate(message, prior, hash, { reservation });
      result.outcomes.push(...duplicate.outcomes);
      if (duplicate.positionEvent) result.positionEvents.push(duplicate.positionEvent);
      continue;
    }
    const conversion = conversions.get(message.id);
    if (conversion && !fromConversionPayer(message, conversion)) {
      // Not stored: the id stays free for the payer that asked for the conversion, and
      // nobody else can end that payer's conversion by sending a transfer under its id.
      result.outcomes.push(tell.error(message.id, message.from, failure(FAILURE.validation, `transfer ${message.id} determines a conversion requested by another FSP`)));
      continue;
    }
    const planned = planTransfer(message, hash, participants, { now, onUsAllowed, conversion });
    known.set(message.id, planned.row);
    result.inserts.push(planned.row);
    if (!planned.failure) {
      result.positionEvents.push(reservation(planned.row, message));
      continue;
    }
    result.outcomes.push(tell.error(message.id, message.from, planned.failure));
    // The payment its FXP reserved for will never come: the payer's source currency is
    // released now rather than when the conversion expires.
    const waiting = conversion && conversionToRelease(planned.row, byCommitRequestId);
    if (waiting) result.positionEvents.push(conversionRelease(waiting, message, planned.failure));
  }
  return result;
}

function fromConversionPayer(message, conversion) {
  return message.from === conversion.payerFsp && message.body?.payerFsp === conversion.payerFsp;
}

/**
 * Same request again: a final transfer is resent to the payer (an invalid one as its
 * error); one still RECEIVED_PREPARE goes to the position handler again, since this may be
 * a redelivery after a crash between the database commit and the produce (the position
 * handler reserves at most once); one further along is ignored. Changed content: 3106.
 * `teller` says it about a transfer or an fx transfer; `reservation` builds the event.
 */
export function classifyDuplicate(message, prior, hash, { teller = tell, reservation }) {
  if (prior.requestHash !== hash) {
    return { outcomes: [teller.error(message.id, message.from, failure(FAILURE.modifiedRequest, `transfer ${message.id} was already prepared with different content`))] };
  }
  if (prior.state === S.invalid) return { outcomes: [teller.error(message.id, message.from, prior.failure)] };
  if (isFinal(prior.state)) return { outcomes: [teller.state(message.id, message.from, prior)] };
  // Still waiting for its reservation (only RECEIVED_PREPARE can become RESERVED).
  if (canTransition(prior.kind, prior.state, S.reserved) && prior.payerAccountId !== null) {
    return { outcomes: [], positionEvent: reservation(prior, message) };
  }
  return { outcomes: [] };
}

function planTransfer(message, hash, participants, { now, onUsAllowed, conversion }) {
  const { body } = message;
  const payer = participants.get(body.payerFsp);
  const payee = participants.get(body.payeeFsp);
  const currency = body.amount?.currency;
  const amount = parseAmount(body.amount?.amount, { allowZero: false });
  // The account the payment debits: the payer's, or for a payment a conversion is for, the
  // FXP's in the target currency (the payer need hold no account in that currency).
  const debtor = conversion ? { role: 'FXP', name: conversion.payeeFsp, participant: participants.get(conversion.payeeFsp) } : { role: 'payer', name: body.payerFsp, participant: payer };
  const debitedAccount = debtor.participant?.positionAccounts.get(currency);
  // Judged at the edge's receipt: a prepare that expires while it waits is not invalid; the
  // position handler finishes it as expired (3303) instead.
  const reasons = [
    ...validationReasons({ message, payer, payee, debtor, currency, amount, receivedAt: receivedAtOf(message, now), onUsAllowed }),
    ...(conversion ? dependentTransferReasons({ currency, amount, conversion }) : []),
  ];
  const row = {
    transferId: message.id,
    kind: TRANSFER_KIND.payment,
    payerFsp: body.payerFsp,
    payeeFsp: body.payeeFsp,
    payerAccountId: debitedAccount?.id ?? null,
    payeeAccountId: payee?.positionAccounts.get(currency)?.id ?? null,
    amount: typeof amount === 'bigint' ? amount : 0n,
    currency: currency ?? 'XXX',
    ilpCondition: isCondition(body.condition) ? body.condition : null,
    ilpPacket: body.ilpPacket,
    expiresAt: Number.isNaN(Date.parse(body.expiration)) ? now : new Date(Date.parse(body.expiration)),
    requestHash: hash,
    ...(conversion ? { commitRequestId: conversion.transferId } : {}),
  };
  if (!reasons.length) return { row: withStatePath(row, transition(TRANSFER_KIND.payment, null, S.receivedPrepare)) };
  const invalid = failure(FAILURE.validation, reasons.join(', '));
  return { row: { ...withStatePath(row, transition(TRANSFER_KIND.payment, null, S.invalid)), reason: invalid.detail, failure: invalid }, failure: invalid };
}

/** A new row is stored in the last state of its path, so the two cannot disagree. */
function withStatePath(row, statePath) {
  return { ...row, state: statePath.at(-1), statePath };
}

/**
 * Every party must be an active participant; the debtor (the payer, or the FXP of a
 * conversion) and the payee must hold an active position account in the currency.
 */
function validationReasons({ message, payer, payee, debtor, currency, amount, receivedAt, onUsAllowed }) {
  const { body } = message;
  const reasons = [];
  if (message.from !== body.payerFsp) reasons.push(`FSPIOP-Source ${message.from} does not match payerFsp ${body.payerFsp}`);
  if (!onUsAllowed && body.payerFsp === body.payeeFsp) reasons.push('payer and payee FSP are the same');
  const parties = [['payer', body.payerFsp, payer, debtor.role === 'payer'], ['payee', body.payeeFsp, payee, true]];
  if (debtor.role !== 'payer') parties.splice(1, 0, [debtor.role, debtor.name, debtor.participant, true]);
  for (const [role, name, participant, holdsAccount] of parties) {
    const account = participant?.positionAccounts.get(currency);
    if (!participant) reasons.push(`${role} FSP ${name} is not a participant`);
    else if (!participant.isActive) reasons.push(`${role} FSP ${name} is not active`);
    else if (holdsAccount && (!account || !account.isActive)) reasons.push(`${role} FSP ${name} has no active position account in ${currency}`);
  }
  if (typeof amount !== 'bigint') reasons.push(amount.detail);
  if (!isCondition(body.condition)) reasons.push('condition is not 32 bytes of base64url');
  const expiresAtMs = Date.parse(body.expiration);
  if (Number.isNaN(expiresAtMs)) reasons.push('expiration is not a date');
  else if (expiresAtMs <= receivedAt.getTime()) reasons.push(`expiration ${body.expiration} is in the past`);
  return reasons;
}
