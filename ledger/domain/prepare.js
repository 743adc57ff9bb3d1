// The prepare handler's decision for a batch of POST /transfers: duplicates first (by the
// hash of the request), then validation; valid transfers go on to the payer's position.
import { FAILURE, failure } from '../../platform/domain/failures.js';
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
 * Returns rows to insert, events for the position handler, and who must be told what.
 */
export function decidePrepareBatch({ messages, existing, participants, now, onUsAllowed = false }) {
  const known = new Map(existing);
  const result = { inserts: [], positionEvents: [], outcomes: [] };
  for (const message of messages) {
    const hash = requestHash(message.body);
    const prior = known.get(message.id);
    if (prior) {
      const duplicate = classifyDuplicate(message, prior, hash);
      result.outcomes.push(...duplicate.outcomes);
      if (duplicate.positionEvent) result.positionEvents.push(duplicate.positionEvent);
      continue;
    }
    const planned = planTransfer(message, hash, participants, { now, onUsAllowed });
    known.set(message.id, planned.row);
    result.inserts.push(planned.row);
    if (planned.failure) result.outcomes.push(tell.error(message.id, message.from, planned.failure));
    else result.positionEvents.push({ accountId: planned.row.payerAccountId, action: 'prepare', message });
  }
  return result;
}

/**
 * Same request again: a final transfer is resent to the payer (an invalid one as its
 * error); one still RECEIVED_PREPARE goes to the position handler again, since this may be
 * a redelivery after a crash between the database commit and the produce (the position
 * handler reserves at most once); one further along is ignored. Changed content: 3106.
 */
function classifyDuplicate(message, prior, hash) {
  if (prior.requestHash !== hash) {
    return { outcomes: [tell.error(message.id, message.from, failure(FAILURE.modifiedRequest, `transfer ${message.id} was already prepared with different content`))] };
  }
  if (prior.state === S.invalid) return { outcomes: [tell.error(message.id, message.from, prior.failure)] };
  if (isFinal(prior.state)) return { outcomes: [tell.state(message.id, message.from, prior)] };
  // Still waiting for its reservation (only RECEIVED_PREPARE can become RESERVED).
  if (canTransition(prior.kind, prior.state, S.reserved) && prior.payerAccountId !== null) {
    return { outcomes: [], positionEvent: { accountId: prior.payerAccountId, action: 'prepare', message } };
  }
  return { outcomes: [] };
}

function planTransfer(message, hash, participants, { now, onUsAllowed }) {
  const { body } = message;
  const payer = participants.get(body.payerFsp);
  const payee = participants.get(body.payeeFsp);
  const currency = body.amount?.currency;
  const amount = parseAmount(body.amount?.amount, { allowZero: false });
  // Judged at the edge's receipt: a prepare that expires while it waits is not invalid; the
  // position handler finishes it as expired (3303) instead.
  const reasons = validationReasons({ message, payer, payee, currency, amount, receivedAt: receivedAtOf(message, now), onUsAllowed });
  const row = {
    transferId: message.id,
    kind: TRANSFER_KIND.payment,
    payerFsp: body.payerFsp,
    payeeFsp: body.payeeFsp,
    payerAccountId: payer?.positionAccounts.get(currency)?.id ?? null,
    payeeAccountId: payee?.positionAccounts.get(currency)?.id ?? null,
    amount: typeof amount === 'bigint' ? amount : 0n,
    currency: currency ?? 'XXX',
    ilpCondition: isCondition(body.condition) ? body.condition : null,
    ilpPacket: body.ilpPacket,
    expiresAt: Number.isNaN(Date.parse(body.expiration)) ? now : new Date(Date.parse(body.expiration)),
    requestHash: hash,
  };
  if (!reasons.length) return { row: withStatePath(row, transition(TRANSFER_KIND.payment, null, S.receivedPrepare)) };
  const invalid = failure(FAILURE.validation, reasons.join(', '));
  return { row: { ...withStatePath(row, transition(TRANSFER_KIND.payment, null, S.invalid)), reason: invalid.detail, failure: invalid }, failure: invalid };
}

/** A new row is stored in the last state of its path, so the two cannot disagree. */
function withStatePath(row, statePath) {
  return { ...row, state: statePath.at(-1), statePath };
}

function validationReasons({ message, payer, payee, currency, amount, receivedAt, onUsAllowed }) {
  const { body } = message;
  const reasons = [];
  if (message.from !== body.payerFsp) reasons.push(`FSPIOP-Source ${message.from} does not match payerFsp ${body.payerFsp}`);
  if (!onUsAllowed && body.payerFsp === body.payeeFsp) reasons.push('payer and payee FSP are the same');
  for (const [role, name, participant] of [['payer', body.payerFsp, payer], ['payee', body.payeeFsp, payee]]) {
    const account = participant?.positionAccounts.get(currency);
    if (!participant) reasons.push(`${role} FSP ${name} is not a participant`);
    else if (!participant.isActive) reasons.push(`${role} FSP ${name} is not active`);
    else if (!account || !account.isActive) reasons.push(`${role} FSP ${name} has no active position account in ${currency}`);
  }
  if (typeof amount !== 'bigint') reasons.push(amount.detail);
  if (!isCondition(body.condition)) reasons.push('condition is not 32 bytes of base64url');
  const expiresAtMs = Date.parse(body.expiration);
  if (Number.isNaN(expiresAtMs)) reasons.push('expiration is not a date');
  else if (expiresAtMs <= receivedAt.getTime()) reasons.push(`expiration ${body.expiration} is in the past`);
  return reasons;
}
