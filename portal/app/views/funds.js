// Funds in and out of a DFSP's settlement account (its liquidity cover), confirmed with the
// cover before and after. A funds-out is reserved and committed in two calls, as the admin API
// (central-ledger's) takes it; both carry the same transferId, so a retry after a failure
// between them completes the same withdrawal rather than making a second one.
import { useState } from 'react';
import { Group, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import { html } from '../html.js';
import { ConfirmAction } from '../confirm.js';
import { add, formatAmount, isAmount, subtract } from '../money.js';
import { newUuid } from '../ids.js';
import { headroomOf } from './positions.js';

const AMOUNT = /^\d{1,14}(\.\d{1,4})?$/;

async function moveFunds(api, { name, row, direction, amount, reason, transferId }) {
  const path = `/participants/${encodeURIComponent(name)}/accounts/${row.settlementAccountId}`;
  const action = direction === 'in' ? 'recordFundsIn' : 'recordFundsOutPrepareReserve';
  await api.post('admin', path, {
    transferId, externalReference: `portal ${transferId.slice(0, 8)}`, action, reason, amount: { amount, currency: row.currency },
  });
  if (direction === 'out') await api.put('admin', `${path}/transfers/${transferId}`, { action: 'recordFundsOutCommit', reason });
}

export function FundsForm({ api, name, rows, onDone }) {
  const [currency, setCurrency] = useState(rows[0]?.currency ?? null);
  const [direction, setDirection] = useState('in');
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  // One key per confirmed form: a new one only after success, so a retried failure repeats.
  const [transferId, setTransferId] = useState(newUuid);
  const row = rows.find((entry) => entry.currency === currency);
  const valid = row && AMOUNT.test(amount) && reason.trim().length > 0 && isAmount(row.liquidity ?? '0');
  const after = valid ? (direction === 'in' ? add(row.liquidity, amount) : subtract(row.liquidity, amount)) : null;
  const details = valid && html`<${Stack} gap="xs" data-testid="funds-summary">
    <${Text}>${direction === 'in' ? 'Record funds in to' : 'Withdraw funds from'} ${name}'s ${row.currency} settlement account: ${formatAmount(amount)} ${row.currency}.</${Text}>
    <${Text}>Liquidity cover: ${formatAmount(row.liquidity)} → <b>${formatAmount(after)}</b> ${row.currency}</${Text}>
    <${Text}>Headroom (what it can still pay out): ${formatAmount(row.headroom)} → <b>${formatAmount(headroomOf(row.position, row.ndc, after).headroom)}</b> ${row.currency}</${Text}>
  </${Stack}>`;
  return html`<${Stack} gap="xs" maw=${520}>
    <${Group} grow>
      <${SegmentedControl} value=${direction} onChange=${setDirection} data=${[{ label: 'Funds in', value: 'in' }, { label: 'Funds out', value: 'out' }]} />
      <${Select} value=${currency} onChange=${setCurrency} data=${rows.map((entry) => entry.currency)} aria-label="Currency" />
    </${Group}>
    <${TextInput} label="Amount" value=${amount} onChange=${(event) => setAmount(event.currentTarget.value.trim())}
      error=${amount && !AMOUNT.test(amount) ? 'a positive amount with at most four decimals' : null} data-testid="funds-amount" />
    <${TextInput} label="Reason" value=${reason} onChange=${(event) => setReason(event.currentTarget.value)} data-testid="funds-reason" />
    <${ConfirmAction} label=${direction === 'in' ? 'Record funds in…' : 'Withdraw funds…'} title="Confirm the funds movement" details=${details}
      disabled=${!valid} testId="funds-submit"
      perform=${() => moveFunds(api, { name, row, direction, amount, reason: reason.trim(), transferId })}
      onDone=${() => { setTransferId(newUuid()); setAmount(''); onDone(); }} />
  </${Stack}>`;
}
