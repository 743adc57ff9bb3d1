// Settlement: windows (close the open one, choose closed ones to settle), settlements with
// their net amounts per DFSP and currency, moved through their states participant by
// participant or all at once, and downloadable as CSV.
import { useState } from 'react';
import { Badge, Button, Card, Checkbox, Group, Loader, Select, Stack, Table, Text, Title } from '@mantine/core';
import { html } from '../html.js';
import { ApiError } from '../api.js';
import { useLoad, useSession } from '../session.js';
import { ConfirmAction, ErrorNote } from '../confirm.js';
import { formatAmount } from '../money.js';
import { accountOwners, nextAccountState, settlementCsv, settlementRows } from './settlement-model.js';

const LOOK_BACK_MS = 90 * 24 * 3600 * 1000;
// The most recent windows shown, each with its totals (one request a window).
const WINDOWS_SHOWN = 20;

/**
 * A list the settlement API answers, as central-settlement does, with its validation error
 * ("Settlements not found", "settlementWindow by filters: … not found") when nothing
 * matches: empty, not an error.
 */
async function listOrEmpty(promise) {
  try {
    return await promise;
  } catch (error) {
    const description = error instanceof ApiError ? error.body?.errorInformation?.errorDescription ?? '' : '';
    if (error instanceof ApiError && error.status === 400 && /not found$/.test(description)) return [];
    throw error;
  }
}

async function loadSettlement(api) {
  const since = new Date(Date.now() - LOOK_BACK_MS).toISOString();
  const [windows, settlements, participants, models] = await Promise.all([
    listOrEmpty(api.get('settlement', `/v2/settlementWindows?fromDateTime=${since}`)),
    listOrEmpty(api.get('settlement', `/v2/settlements?fromDateTime=${since}`)),
    api.get('admin', '/participants'),
    api.get('admin', '/settlementModels'),
  ]);
  const byIdDescending = (a, b) => Number(b.id ?? b.settlementWindowId) - Number(a.id ?? a.settlementWindowId);
  const shown = [...windows].sort(byIdDescending).slice(0, WINDOWS_SHOWN);
  const totals = await Promise.all(shown.map((window) => api.get('settlement', `/v2/settlementWindows/${window.settlementWindowId}/totals`)));
  const withTotals = shown.map((window, index) => ({ ...window, totals: totals[index].totals }));
  return { windows: withTotals, settlements: [...settlements].sort(byIdDescending), owners: accountOwners(participants), models };
}

function download(settlement, rows) {
  const url = URL.createObjectURL(new Blob([settlementCsv(settlement, rows)], { type: 'text/csv' }));
  const link = Object.assign(document.createElement('a'), { href: url, download: `settlement-${settlement.id}.csv` });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function Windows({ api, windows, models, onDone }) {
  const [chosen, setChosen] = useState([]);
  const [model, setModel] = useState(null);
  const toggle = (id) => setChosen(chosen.includes(id) ? chosen.filter((other) => other !== id) : [...chosen, id]);
  const modelNames = models.filter((entry) => String(entry.isActive) === '1' || entry.isActive === true).map((entry) => entry.name);
  const createSettlement = () => api.post('settlement', '/v2/settlements', {
    settlementModel: model, reason: 'settled from the portal', settlementWindows: chosen.map((id) => ({ id })),
  });
  return html`<${Card} withBorder><${Title} order=${4} mb="xs">Settlement windows</${Title}>
    <${Table} data-testid="windows"><${Table.Thead}><${Table.Tr}><${Table.Th} /><${Table.Th}>Window</${Table.Th}><${Table.Th}>State</${Table.Th}>
      <${Table.Th}>Opened</${Table.Th}><${Table.Th}>Totals</${Table.Th}><${Table.Th} /></${Table.Tr}></${Table.Thead}>
    <${Table.Tbody}>${windows.map((window) => {
      const id = String(window.settlementWindowId);
      return html`<${Table.Tr} key=${id} data-testid=${`window-${id}`}>
        <${Table.Td}>${window.state === 'CLOSED' && html`<${Checkbox} checked=${chosen.includes(id)} onChange=${() => toggle(id)} aria-label=${`choose window ${id}`} data-testid=${`choose-window-${id}`} />`}</${Table.Td}>
        <${Table.Td}>${id}</${Table.Td}><${Table.Td}><${Badge} data-testid="window-state">${window.state}</${Badge}></${Table.Td}>
        <${Table.Td}>${window.createdDate}</${Table.Td}>
        <${Table.Td} data-testid="window-totals">${window.totals.map((total) => `${formatAmount(String(total.amount))} ${total.currency} (${total.transferCount} transfer${String(total.transferCount) === '1' ? '' : 's'})`).join('; ') || 'no transfers'}</${Table.Td}>
        <${Table.Td}>${window.state === 'OPEN' && html`<${ConfirmAction} label="Close…" title=${`Close window ${id}`} testId="close-window" onDone=${onDone}
          details=${`Window ${id} closes and a new one opens; transfers committed from now on fall into the new window.`}
          perform=${() => api.post('settlement', `/v2/settlementWindows/${id}`, { state: 'CLOSED', reason: 'closed from the portal' })} />`}</${Table.Td}>
      </${Table.Tr}>`;
    })}</${Table.Tbody}></${Table}>
    <${Group} mt="sm" align="flex-end">
      <${Select} label="Settlement model" data=${modelNames} value=${model} onChange=${setModel} data-testid="settlement-model" />
      <${ConfirmAction} label="Settle the chosen windows…" title="Create a settlement" disabled=${!model || chosen.length === 0} testId="create-settlement"
        details=${`A settlement under ${model} over window(s) ${chosen.join(', ')}: each DFSP's net position in them becomes its net settlement amount.`}
        perform=${createSettlement} onDone=${() => { setChosen([]); onDone(); }} />
    </${Group}>
  </${Card}>`;
}

function Settlement({ api, settlement, owners, onDone }) {
  const rows = settlementRows(settlement, owners);
  const advance = (row) => api.put('settlement', `/v2/settlements/${settlement.id}/participants/${row.participantId}`, {
    accounts: [{ id: row.accountId, state: nextAccountState(row.state), reason: 'moved from the portal' }],
  });
  const movable = rows.filter((row) => nextAccountState(row.state));
  const advanceAll = () => api.put('settlement', `/v2/settlements/${settlement.id}`, {
    participants: movable.map((row) => ({ id: row.participantId, accounts: [{ id: row.accountId, state: nextAccountState(row.state), reason: 'moved from the portal' }] })),
  });
  return html`<${Card} withBorder data-testid="settlement" data-settlement-id=${settlement.id}>
    <${Group} justify="space-between"><${Group}><${Title} order=${5}>Settlement ${settlement.id}</${Title}><${Badge} data-testid="settlement-state">${settlement.state}</${Badge}>
      <${Text} size="sm" c="dimmed">windows ${(settlement.settlementWindows ?? []).map((window) => window.id).join(', ')}</${Text}></${Group}>
      <${Group}><${Button} variant="default" size="xs" onClick=${() => download(settlement, rows)} data-testid="settlement-csv">CSV</${Button}>
        ${movable.length > 0 && html`<${ConfirmAction} label="Move every account on…" title=${`Settlement ${settlement.id}`} testId="advance-all" onDone=${onDone}
          details=${`Each of ${movable.length} account(s) moves to its next state (${movable.map((row) => `${row.name} ${row.currency} → ${nextAccountState(row.state)}`).join('; ')}).`}
          perform=${advanceAll} />`}</${Group}></${Group}>
    <${Table}><${Table.Tbody}>${rows.map((row) => html`<${Table.Tr} key=${row.accountId}>
      <${Table.Td}>${row.name}</${Table.Td}><${Table.Td}>${row.currency}</${Table.Td}><${Table.Td} ta="right">${formatAmount(row.netAmount)}</${Table.Td}>
      <${Table.Td}>${row.state}</${Table.Td}>
      <${Table.Td}>${nextAccountState(row.state) && html`<${ConfirmAction} label=${`→ ${nextAccountState(row.state)}`} title=${`${row.name} in settlement ${settlement.id}`}
        details=${`${row.name}'s ${row.currency} account (net ${formatAmount(row.netAmount)}) moves from ${row.state} to ${nextAccountState(row.state)}.`}
        perform=${() => advance(row)} onDone=${onDone} />`}</${Table.Td}>
    </${Table.Tr}>`)}</${Table.Tbody}></${Table}>
  </${Card}>`;
}

export function SettlementView() {
  const { api } = useSession();
  const { data, error, loading, reload } = useLoad(loadSettlement, []);
  return html`<${Stack}>
    <${Group} justify="space-between"><${Title} order=${2}>Settlement</${Title}>${loading && html`<${Loader} size="sm" />`}</${Group}>
    <${ErrorNote} error=${error} />
    ${data && html`<${Windows} api=${api} windows=${data.windows} models=${data.models} onDone=${reload} />`}
    <${Title} order=${4}>Settlements</${Title}>
    ${(data?.settlements ?? []).map((settlement) => html`<${Settlement} key=${settlement.id} api=${api} settlement=${settlement} owners=${data.owners} onDone=${reload} />`)}
  </${Stack}>`;
}
