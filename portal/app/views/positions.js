// Each DFSP's standing per currency, from the admin API: its position, net debit cap (NDC),
// its liquidity cover (what it has pre-funded in its settlement account, which the API shows
// as a negative balance, as central-ledger does), and its headroom: what it can still pay out,
// since a prepare must fit under both its cover and its cap (ledger/domain/position.js).
import { compare, negate, percentOf, subtract } from '../money.js';

/** The lower of the cap and the cover, either of which may be unknown (null). */
function ceilingOf(ndc, liquidity) {
  if (ndc === null) return liquidity;
  if (liquidity === null) return ndc;
  return compare(ndc, liquidity) <= 0 ? ndc : liquidity;
}

/** Headroom and share used for a position under a cap and a cover. */
export function headroomOf(position, ndc, liquidity) {
  const ceiling = ceilingOf(ndc, liquidity);
  if (ceiling === null) return { headroom: null, usedPercent: 0 };
  return { headroom: subtract(ceiling, position), usedPercent: Math.max(0, percentOf(position, ceiling)) };
}

const ACCOUNT_TYPE = Object.freeze({ position: 'POSITION', settlement: 'SETTLEMENT' });

/** The rows of one participant: one per currency it holds a position in. */
export function standingOf(participant, accounts, limits) {
  const positions = accounts.filter((account) => account.ledgerAccountType === ACCOUNT_TYPE.position);
  return positions.map((position) => {
    const settlement = accounts.find((account) => account.ledgerAccountType === ACCOUNT_TYPE.settlement && account.currency === position.currency);
    const limit = limits.find((entry) => entry.name === participant.name && entry.currency === position.currency && entry.limit.type === 'NET_DEBIT_CAP');
    const ndc = limit ? String(limit.limit.value) : null;
    const value = String(position.value);
    const liquidity = settlement ? negate(String(settlement.value)) : null;
    return {
      name: participant.name,
      currency: position.currency,
      participantActive: participant.isActive === true || String(participant.isActive) === '1',
      accountActive: String(position.isActive) === '1' || position.isActive === true,
      positionAccountId: position.id,
      settlementAccountId: settlement?.id,
      position: value,
      reserved: String(position.reservedValue ?? '0'),
      ndc,
      liquidity,
      ...headroomOf(value, ndc, liquidity),
    };
  });
}

/** Most of its cap used first, then by name. */
export function byHeadroomUsed(a, b) {
  return b.usedPercent - a.usedPercent || a.name.localeCompare(b.name) || a.currency.localeCompare(b.currency);
}

/** Loads every DFSP's standing (the hub's own accounts left out). */
export async function loadStandings(api) {
  const [participants, limits] = await Promise.all([api.get('admin', '/participants'), api.get('admin', '/participants/limits')]);
  const dfsps = participants.filter((participant) => !participant.accounts?.some((account) => account.ledgerAccountType.startsWith('HUB_')));
  const accounts = await Promise.all(dfsps.map((participant) => api.get('admin', `/participants/${encodeURIComponent(participant.name)}/accounts`)));
  return dfsps.flatMap((participant, index) => standingOf(participant, accounts[index], limits)).sort(byHeadroomUsed);
}

/** True when the position is over the cap (possible after an NDC was lowered). */
export const overCap = (row) => row.ndc !== null && compare(row.position, row.ndc) > 0;
