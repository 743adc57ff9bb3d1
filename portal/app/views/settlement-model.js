// What the settlement view computes from the settlement API's answers: the next state of a
// settlement account, the names behind its account ids, and the CSV an operator downloads.
export const ACCOUNT_STATE_ORDER = Object.freeze(['PENDING_SETTLEMENT', 'PS_TRANSFERS_RECORDED', 'PS_TRANSFERS_RESERVED', 'PS_TRANSFERS_COMMITTED', 'SETTLED']);

/** The state an account moves to next, or null when it is settled (or aborted). */
export function nextAccountState(state) {
  const index = ACCOUNT_STATE_ORDER.indexOf(state);
  return index < 0 || index === ACCOUNT_STATE_ORDER.length - 1 ? null : ACCOUNT_STATE_ORDER[index + 1];
}

/** account id → { name, currency } over every participant's accounts. */
export function accountOwners(participants) {
  const owners = new Map();
  for (const participant of participants) {
    for (const account of participant.accounts ?? []) owners.set(String(account.id), { name: participant.name, currency: account.currency });
  }
  return owners;
}

/** A settlement's accounts as flat rows: participant, DFSP, currency, net amount, state. */
export function settlementRows(settlement, owners) {
  return (settlement.participants ?? []).flatMap((participant) => participant.accounts.map((account) => ({
    participantId: String(participant.id),
    accountId: String(account.id),
    name: owners.get(String(account.id))?.name ?? `participant ${participant.id}`,
    currency: account.netSettlementAmount?.currency ?? owners.get(String(account.id))?.currency ?? '',
    netAmount: String(account.netSettlementAmount?.amount ?? ''),
    state: account.state,
  })));
}

const csvField = (value) => (/[",\n]/.test(String(value)) ? `"${String(value).replace(/"/g, '""')}"` : String(value));

export function settlementCsv(settlement, rows) {
  const header = ['settlementId', 'settlementState', 'dfsp', 'participantId', 'accountId', 'currency', 'netAmount', 'accountState'];
  const lines = rows.map((row) => [settlement.id, settlement.state, row.name, row.participantId, row.accountId, row.currency, row.netAmount, row.state]);
  return `${[header, ...lines].map((line) => line.map(csvField).join(',')).join('\n')}\n`;
}
