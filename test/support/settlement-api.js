// Calls to the operator APIs a settlement test needs (the settlement API, and the admin API
// for account balances) with the test's operator token. Answers are read without Number for
// money: every `amount`, `value` and `reservedValue` arrives as its exact decimal text, as the
// server wrote it, and every other JSON number (ids, counts) as a number.
import { isLosslessNumber, parse } from 'lossless-json';
import { adminHeaders } from './admin-api.js';
import { amountFromColumn, parseAmount } from '../../ledger/domain/money.js';

const DECIMAL_FIELDS = new Set(['amount', 'value', 'reservedValue']);

export function parseOperatorJson(text) {
  return parse(text, (key, value) => {
    if (!isLosslessNumber(value)) return value;
    return DECIMAL_FIELDS.has(key) ? value.toString() : Number(value.toString());
  });
}

/** `request(method, path, body)` → { status, body, text } against `baseUrl`, with the token of `scope`. */
export function operatorClient(baseUrl, scope = 'readWrite') {
  return async function request(method, path, body) {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...adminHeaders(scope), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? parseOperatorJson(text) : undefined, text };
  };
}

/**
 * A participant's account balances from the admin API, as scaled BigInt by account type:
 * { POSITION: 1234500n, SETTLEMENT: -50000000n, ... } in `currency`.
 */
export async function balancesOf(adminRequest, name, currency) {
  const answer = await adminRequest('GET', `/participants/${name}/accounts?currency=${currency}`);
  if (answer.status !== 200) throw new Error(`accounts of ${name}: ${answer.status} ${answer.text}`);
  return Object.fromEntries(answer.body.map((account) => [account.ledgerAccountType, amountFromColumn(account.value)]));
}

/** Polls `probe` until it returns something truthy, and returns that; fails naming `what` after `timeoutMs`. */
export async function pollUntil(what, probe, { timeoutMs = 15000, intervalMs = 100 } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = await probe();
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms`);
}

/** A settlement's accounts from its answer: accountId → { participantId, state, currency, net (BigInt), amountText, errorInformation }. */
export function accountsOf(settlement) {
  return new Map(settlement.participants.flatMap((participant) => participant.accounts.map((account) => [account.id, {
    participantId: participant.id,
    state: account.state,
    currency: account.netSettlementAmount?.currency,
    amountText: account.netSettlementAmount?.amount,
    net: account.netSettlementAmount ? parseAmount(account.netSettlementAmount.amount, { allowNegative: true }) : undefined,
    errorInformation: account.errorInformation,
  }])));
}
