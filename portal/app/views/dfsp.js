// One DFSP: its standing per currency, and what an operator does to it — funds in and out, a
// new net debit cap, activation — with its endpoints, JWS keys and the audit trail of changes.
import { useEffect, useState } from 'react';
import { Anchor, Badge, Card, Code, Group, Loader, Select, SimpleGrid, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { html } from '../html.js';
import { useLoad, useSession } from '../session.js';
import { ConfirmAction, ErrorNote } from '../confirm.js';
import { formatAmount } from '../money.js';
import { keyFingerprint } from '../ids.js';
import { linkTo } from '../router.js';
import { standingOf } from './positions.js';
import { FundsForm } from './funds.js';
import { AuditTable } from './audit.js';

async function loadDfsp(api, name) {
  const at = `/participants/${encodeURIComponent(name)}`;
  const [participant, accounts, limits, endpoints, keys, audit] = await Promise.all([
    api.get('admin', at), api.get('admin', `${at}/accounts`), api.get('admin', `${at}/limits`),
    api.get('admin', `${at}/endpoints`), api.get('admin', `${at}/jwsKeys`),
    api.get('admin', `/audit?target=${encodeURIComponent(at)}&limit=20`),
  ]);
  const namedLimits = limits.map((limit) => ({ ...limit, name }));
  return { participant, accounts, rows: standingOf(participant, accounts, namedLimits), endpoints, keys, audit };
}

function Standing({ rows }) {
  return html`<${Table} data-testid="dfsp-standing">
    <${Table.Thead}><${Table.Tr}><${Table.Th}>Currency</${Table.Th}><${Table.Th} ta="right">Position</${Table.Th}><${Table.Th} ta="right">Reserved</${Table.Th}>
      <${Table.Th} ta="right">Net debit cap</${Table.Th}><${Table.Th} ta="right">Headroom</${Table.Th}><${Table.Th} ta="right">Liquidity cover</${Table.Th}></${Table.Tr}></${Table.Thead}>
    <${Table.Tbody}>${rows.map((row) => html`<${Table.Tr} key=${row.currency} data-testid=${`standing-${row.currency}`}>
      <${Table.Td}>${row.currency}</${Table.Td}><${Table.Td} ta="right" data-testid="position">${formatAmount(row.position)}</${Table.Td}>
      <${Table.Td} ta="right">${formatAmount(row.reserved)}</${Table.Td}><${Table.Td} ta="right" data-testid="ndc">${formatAmount(row.ndc)}</${Table.Td}>
      <${Table.Td} ta="right" data-testid="headroom">${formatAmount(row.headroom)}</${Table.Td}>
      <${Table.Td} ta="right" data-testid="liquidity">${formatAmount(row.liquidity)}</${Table.Td}></${Table.Tr}>`)}</${Table.Tbody}>
  </${Table}>`;
}

function CapForm({ api, name, rows, onDone }) {
  const [currency, setCurrency] = useState(rows[0]?.currency);
  const [value, setValue] = useState('');
  const row = rows.find((entry) => entry.currency === currency);
  const valid = row && /^\d{1,14}(\.\d{1,4})?$/.test(value);
  const perform = () => api.put('admin', `/participants/${encodeURIComponent(name)}/limits`, {
    currency, limit: { type: 'NET_DEBIT_CAP', value, alarmPercentage: '10' },
  });
  return html`<${Stack} gap="xs" maw=${520}>
    <${Group} grow>
      <${Select} label="Currency" value=${currency} onChange=${setCurrency} data=${rows.map((entry) => entry.currency)} allowDeselect=${false} />
      <${TextInput} label="New net debit cap" value=${value} onChange=${(event) => setValue(event.currentTarget.value.trim())} data-testid="ndc-value" />
    </${Group}>
    <${ConfirmAction} label="Change the cap…" title="Confirm the new net debit cap" disabled=${!valid} testId="ndc-submit" perform=${perform}
      onDone=${() => { setValue(''); onDone(); }}
      details=${valid && `${name}'s ${currency} net debit cap: ${formatAmount(row.ndc)} → ${formatAmount(value)} ${currency}.`} />
  </${Stack}>`;
}

function Fingerprint({ pem }) {
  const [text, setText] = useState('…');
  useEffect(() => {
    keyFingerprint(pem).then(setText, () => setText('(not a readable key)'));
  }, [pem]);
  return html`<${Code}>${text}</${Code}>`;
}

function Activation({ api, name, active, onDone }) {
  return html`<${ConfirmAction} label=${active ? 'Deactivate…' : 'Activate…'} color=${active ? 'red' : 'green'} testId="activation"
    title=${active ? `Deactivate ${name}` : `Activate ${name}`} onDone=${onDone}
    details=${active ? `${name} will be refused as payer and payee until it is activated again.` : `${name} will be able to send and receive payments.`}
    perform=${() => api.put('admin', `/participants/${encodeURIComponent(name)}`, { isActive: !active })} />`;
}

export function DfspView({ name }) {
  const session = useSession();
  const { data, error, loading, reload } = useLoad((api) => loadDfsp(api, name), [name]);
  if (!data) return html`<div><${Title} order=${2}>${name}</${Title}>${loading ? html`<${Loader} />` : html`<${ErrorNote} error=${error} />`}</div>`;
  const active = data.participant.isActive === true || String(data.participant.isActive) === '1';
  return html`<${Stack}>
    <${Group} justify="space-between">
      <${Group}><${Anchor} href=${linkTo('dfsps')}>DFSPs</${Anchor}><${Text}>/</${Text}><${Title} order=${2}>${name}</${Title}>
        <${Badge} color=${active ? 'green' : 'gray'} data-testid="dfsp-active">${active ? 'active' : 'inactive'}</${Badge}>
        <${Badge} variant="outline">${data.participant.apiType ?? 'FSPIOP'}</${Badge}></${Group}>
      <${Activation} api=${session.api} name=${name} active=${active} onDone=${reload} />
    </${Group}>
    <${ErrorNote} error=${error} />
    <${Standing} rows=${data.rows} />
    <${SimpleGrid} cols=${{ base: 1, lg: 2 }}>
      <${Card} withBorder><${Title} order=${4} mb="xs">Funds</${Title}><${FundsForm} api=${session.api} name=${name} rows=${data.rows} onDone=${reload} /></${Card}>
      <${Card} withBorder><${Title} order=${4} mb="xs">Net debit cap</${Title}><${CapForm} api=${session.api} name=${name} rows=${data.rows} onDone=${reload} /></${Card}>
    </${SimpleGrid}>
    <${Title} order=${4}>Accounts</${Title}>
    <${Table} data-testid="dfsp-accounts"><${Table.Tbody}>${data.accounts.map((account) => html`<${Table.Tr} key=${account.id}>
      <${Table.Td}>${account.id}</${Table.Td}><${Table.Td}>${account.ledgerAccountType}</${Table.Td}><${Table.Td}>${account.currency}</${Table.Td}>
      <${Table.Td} ta="right">${formatAmount(String(account.value))}</${Table.Td}><${Table.Td}>${String(account.isActive) === '1' ? 'active' : 'inactive'}</${Table.Td}></${Table.Tr}>`)}</${Table.Tbody}></${Table}>
    <${Title} order=${4}>Endpoints</${Title}>
    <${Table} data-testid="dfsp-endpoints"><${Table.Tbody}>${data.endpoints.map((endpoint) => html`<${Table.Tr} key=${endpoint.type}>
      <${Table.Td}>${endpoint.type}</${Table.Td}><${Table.Td}><${Code}>${endpoint.value}</${Code}></${Table.Td}></${Table.Tr}>`)}</${Table.Tbody}></${Table}>
    <${Title} order=${4}>JWS keys</${Title}>
    <${Table} data-testid="dfsp-keys"><${Table.Tbody}>${data.keys.map((key) => html`<${Table.Tr} key=${key.keyId}>
      <${Table.Td}><${Code}>${key.keyId}</${Code}></${Table.Td}><${Table.Td}><${Fingerprint} pem=${key.publicKey} /></${Table.Td}>
      <${Table.Td}>${key.createdDate}</${Table.Td}></${Table.Tr}>`)}</${Table.Tbody}></${Table}>
    <${Title} order=${4}>Changes to ${name}</${Title}>
    <${AuditTable} entries=${data.audit} />
  </${Stack}>`;
}
