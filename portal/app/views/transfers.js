// Transfers: found by transfer id, quote id or the payer's or payee's MSISDN, with both DFSPs,
// the amounts, the state history with its timings, and why it failed if it did.
import { useState } from 'react';
import { Anchor, Badge, Button, Card, Code, Group, Select, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { html } from '../html.js';
import { useSession } from '../session.js';
import { ErrorNote } from '../confirm.js';
import { formatAmount } from '../money.js';

const SEARCHES = Object.freeze([
  { value: 'transfer', label: 'Transfer id' },
  { value: 'quote', label: 'Quote id' },
  { value: 'msisdn', label: 'Party (MSISDN)' },
]);

async function search(api, kind, text) {
  if (kind === 'transfer') return { transfers: [await api.get('admin', `/transfers/${encodeURIComponent(text)}`)], detailed: true };
  const query = kind === 'quote' ? `quoteId=${encodeURIComponent(text)}` : `partyIdType=MSISDN&partyIdentifier=${encodeURIComponent(text)}`;
  return { transfers: await api.get('admin', `/transfers?${query}`), detailed: false };
}

const party = (value) => (value ? `${value.partyIdType ?? ''} ${value.partyIdentifier ?? ''}${value.fspId ? ` at ${value.fspId}` : ''}` : '—');
const money = (value) => (value ? `${formatAmount(String(value.amount))} ${value.currency}` : '—');

function elapsed(fromIso, toIso) {
  const milliseconds = Date.parse(toIso) - Date.parse(fromIso);
  return Number.isFinite(milliseconds) ? `+${milliseconds} ms` : '';
}

function TransferDetail({ transfer }) {
  const first = transfer.history?.[0]?.at ?? transfer.createdAt;
  const fact = (label, value, testId) => html`<div><${Text} size="xs" c="dimmed">${label}</${Text}><${Text} data-testid=${testId}>${value ?? '—'}</${Text}></div>`;
  return html`<${Card} withBorder data-testid="transfer-detail">
    <${Group} mb="sm"><${Title} order=${4}><${Code}>${transfer.transferId}</${Code}></${Title}>
      <${Badge} size="lg" data-testid="transfer-state">${transfer.state}</${Badge}><${Badge} variant="outline">${transfer.kind}</${Badge}></${Group}>
    <${SimpleGrid} cols=${3}>
      ${fact('Payer DFSP', transfer.payerFsp, 'payer-fsp')}${fact('Payee DFSP', transfer.payeeFsp, 'payee-fsp')}${fact('Amount', money(transfer.amount), 'transfer-amount')}
      ${fact('Payer', party(transfer.payer))}${fact('Payee', party(transfer.payee))}${fact('Target amount', transfer.targetAmount && money(transfer.targetAmount))}
      ${fact('Quote id', transfer.quoteId)}${fact('Transaction id', transfer.transactionId)}${fact('Expires', transfer.expiration)}
      ${fact('Created', transfer.createdAt)}${fact('Completed', transfer.completedAt)}
      ${fact('Error', transfer.failure ? `${transfer.failure.code}: ${transfer.failure.detail ?? ''}` : transfer.payeeError ? `${transfer.payeeError.errorCode}: ${transfer.payeeError.errorDescription}` : null, 'transfer-error')}
    </${SimpleGrid}>
    <${Title} order=${5} mt="md">State history</${Title}>
    <${Table} data-testid="transfer-history"><${Table.Tbody}>${(transfer.history ?? []).map((step, index) => html`<${Table.Tr} key=${index}>
      <${Table.Td}>${step.state}</${Table.Td}><${Table.Td}>${step.at}</${Table.Td}><${Table.Td}>${elapsed(first, step.at)}</${Table.Td}><${Table.Td}>${step.reason ?? ''}</${Table.Td}>
    </${Table.Tr}>`)}</${Table.Tbody}></${Table}>
  </${Card}>`;
}

export function TransfersView({ initial }) {
  const { api } = useSession();
  const [kind, setKind] = useState('transfer');
  const [text, setText] = useState(initial ?? '');
  const [result, setResult] = useState(null);
  const [error, setError] = useState(null);
  const [pending, setPending] = useState(false);
  const find = async (searchKind, searchText) => {
    setPending(true);
    setError(null);
    try {
      setResult(await search(api, searchKind, searchText.trim()));
    } catch (failure) {
      setResult(null);
      setError(failure);
    } finally {
      setPending(false);
    }
  };
  const open = (transferId) => {
    setKind('transfer');
    setText(transferId);
    find('transfer', transferId);
  };
  return html`<${Stack}>
    <${Title} order=${2}>Transfers</${Title}>
    <form onSubmit=${(event) => { event.preventDefault(); find(kind, text); }}>
      <${Group} align="flex-end">
        <${Select} label="Find by" data=${SEARCHES} value=${kind} onChange=${setKind} allowDeselect=${false} data-testid="search-kind" />
        <${TextInput} label="Value" w=${380} value=${text} onChange=${(event) => setText(event.currentTarget.value)} data-testid="search-text" />
        <${Button} type="submit" loading=${pending} disabled=${!text.trim()} data-testid="search">Find</${Button}>
      </${Group}>
    </form>
    <${ErrorNote} error=${error} />
    ${result?.detailed && html`<${TransferDetail} transfer=${result.transfers[0]} />`}
    ${result && !result.detailed && html`<${Table} data-testid="transfer-results"><${Table.Tbody}>
      ${result.transfers.length === 0 && html`<${Table.Tr}><${Table.Td}>No transfer matches.</${Table.Td}></${Table.Tr}>`}
      ${result.transfers.map((transfer) => html`<${Table.Tr} key=${transfer.transferId}>
        <${Table.Td}><${Anchor} onClick=${() => open(transfer.transferId)}>${transfer.transferId}</${Anchor}></${Table.Td}>
        <${Table.Td}>${transfer.payerFsp} → ${transfer.payeeFsp}</${Table.Td}><${Table.Td}>${money(transfer.amount)}</${Table.Td}>
        <${Table.Td}>${transfer.state}</${Table.Td}><${Table.Td}>${transfer.createdAt}</${Table.Td}></${Table.Tr}>`)}
    </${Table.Tbody}></${Table}>`}
  </${Stack}>`;
}
