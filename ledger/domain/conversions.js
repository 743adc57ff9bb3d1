// How a payment and the currency conversion it depends on are linked. An fx transfer names
// the payment it is for (its determiningTransferId); the payment, once prepared, names its
// conversion (its commitRequestId) and reserves the FXP's position in the target currency
// instead of the payer's: its payerAccountId is the FXP's account, the one it debits. Every
// position event of such a payment names the other accounts its batch must lock, so that one
// position transaction moves the payment and its conversion together.
import { TRANSFER_STATE } from './transfer-states.js';

const S = TRANSFER_STATE;

/** The conversion a stored payment depends on, or undefined for a plain payment. */
export function conversionOf(transfer, conversions) {
  if (!transfer.commitRequestId) return undefined;
  const conversion = conversions.get(transfer.commitRequestId);
  // The handlers read a payment's conversion with the payment: a missing one is their bug.
  if (!conversion) throw new Error(`conversion ${transfer.commitRequestId} of transfer ${transfer.transferId} was not read with it`);
  return conversion;
}

/**
 * The account a position event of a dependent payment also moves: its commit credits the
 * FXP in the source currency (the conversion's payee account); a release, refusal or expiry
 * gives the payer back its source-currency reservation (the conversion's payer account).
 */
function linkedAccountId(action, conversion) {
  return action === 'commit' ? conversion.payeeAccountId : conversion.payerAccountId;
}

/**
 * `positionEvent` for `transfer`, naming its conversion and the conversion's account when it
 * has one. The position handler locks every account an event names (in account order, with
 * the accounts of the rest of its batch), so it never needs to own their partition.
 */
export function withConversion(positionEvent, transfer, conversions) {
  const conversion = conversionOf(transfer, conversions);
  if (!conversion) return positionEvent;
  return { ...positionEvent, commitRequestId: conversion.transferId, linkedAccountIds: [linkedAccountId(positionEvent.action, conversion)] };
}

/**
 * Why a POST /transfers may not be the payment `conversion` is for: its currency and amount
 * must be the conversion's target, and the FXP must have fulfilled the conversion
 * (RECEIVED_FULFIL_DEPENDENT). The position handler checks the state again under lock.
 */
export function dependentTransferReasons({ currency, amount, conversion }) {
  const reasons = [];
  if (currency !== conversion.targetCurrency) reasons.push(`currency ${currency} is not the target currency ${conversion.targetCurrency} of conversion ${conversion.transferId}`);
  if (typeof amount === 'bigint' && amount !== conversion.targetAmount) reasons.push(`amount is not the target amount of conversion ${conversion.transferId}`);
  if (conversion.state !== S.receivedFulfilDependent) reasons.push(`conversion ${conversion.transferId} is ${conversion.state}, not reserved by its FXP`);
  return reasons;
}

/**
 * The position event that ends `conversion` because its dependent transfer ended before it
 * reserved anything (refused at prepare, expired, set aside): the payer's source currency is
 * released and the FXP told, now rather than when the conversion expires. `message` is the
 * transfer's; the position handler checks, under lock, that the transfer has ended.
 */
export function conversionRelease(conversion, message, cause) {
  return { accountId: conversion.payerAccountId, action: 'fx-abort', message, commitRequestId: conversion.transferId, failure: cause };
}

/** The conversion of a payment that ended before its reservation, if it waits to be released. */
export function conversionToRelease(transfer, conversions) {
  const conversion = conversionOf(transfer, conversions);
  return conversion?.state === S.receivedFulfilDependent ? conversion : undefined;
}
