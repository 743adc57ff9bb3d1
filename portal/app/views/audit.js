// The audit trail: who changed what through the operator APIs, when, with the record before
// and after, newest first.
import { useState } from 'react';
import { Badge, Button, Code, Group, Loader, Spoiler, Table, TextInput, Title } from '@mantine/core';
import { html } from '../html.js';
import { useLoad } from '../session.js';
import { ErrorNote } from '../confirm.js';

function Json({ value }) {
  if (value === null || value === undefined) return '—';
  return html`<${Spoiler} maxHeight=${60} showLabel="more" hideLabel="less"><${Code} block>${JSON.stringify(value, null, 2)}</${Code}></${Spoiler}>`;
}

export function AuditTable({ entries }) {
  return html`<${Table} striped data-testid="audit">
    <${Table.Thead}><${Table.Tr}><${Table.Th}>When</${Table.Th}><${Table.Th}>Who</${Table.Th}><${Table.Th}>What</${Table.Th}>
      <${Table.Th}>Outcome</${Table.Th}><${Table.Th}>Before</${Table.Th}><${Table.Th}>After</${Table.Th}></${Table.Tr}></${Table.Thead}>
    <${Table.Tbody}>${entries.map((entry) => html`<${Table.Tr} key=${entry.id} data-testid="audit-entry">
      <${Table.Td}>${entry.occurredAt}</${Table.Td}>
      <${Table.Td}>${entry.actor}</${Table.Td}>
      <${Table.Td}><${Code}>${entry.method} ${entry.target}</${Code}><br />${entry.api} API</${Table.Td}>
      <${Table.Td}><${Badge} color=${String(entry.status).startsWith('2') ? 'green' : 'red'}>${entry.status}</${Badge}>
        ${entry.errorDescription ? ` ${entry.errorDescription}` : ''}</${Table.Td}>
      <${Table.Td} maw=${320}><${Json} value=${entry.before} /></${Table.Td}>
      <${Table.Td} maw=${320}><${Json} value=${entry.after} /></${Table.Td}>
    </${Table.Tr}>`)}</${Table.Tbody}>
  </${Table}>`;
}

function query(filters) {
  const parameters = new URLSearchParams({ limit: '100' });
  for (const [name, value] of Object.entries(filters)) if (value.trim()) parameters.set(name, value.trim());
  return `/audit?${parameters}`;
}

export function AuditView() {
  const [draft, setDraft] = useState({ actor: '', api: '', target: '' });
  const [filters, setFilters] = useState(draft);
  const { data, error, loading, reload } = useLoad((api) => api.get('admin', query(filters)), [JSON.stringify(filters)]);
  const field = (name, label) => html`<${TextInput} label=${label} value=${draft[name]}
    onChange=${(event) => setDraft({ ...draft, [name]: event.currentTarget.value })} />`;
  return html`<div>
    <${Group} justify="space-between" mb="md"><${Title} order=${2}>Audit</${Title}>${loading && html`<${Loader} size="sm" />`}</${Group}>
    <${Group} align="flex-end" mb="md">
      ${field('actor', 'Who (e.g. operator:read-write)')}${field('api', 'API (admin, settlement, oracle-admin)')}${field('target', 'Target starts with')}
      <${Button} onClick=${() => (JSON.stringify(draft) === JSON.stringify(filters) ? reload() : setFilters(draft))}>Show</${Button}>
    </${Group}>
    <${ErrorNote} error=${error} />
    <${AuditTable} entries=${data ?? []} />
  </div>`;
}
