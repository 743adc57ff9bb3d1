// DFSPs: every participant's position, cap, headroom and liquidity per currency, those nearest
// their cap first, refreshed every five seconds.
import { Anchor, Badge, Group, Loader, Progress, Table, Text, Title } from '@mantine/core';
import { html } from '../html.js';
import { useLoad } from '../session.js';
import { ErrorNote } from '../confirm.js';
import { formatAmount } from '../money.js';
import { linkTo } from '../router.js';
import { loadStandings, overCap } from './positions.js';

const REFRESH_MS = 5000;

function barColor(row) {
  if (overCap(row) || row.usedPercent >= 90) return 'red';
  return row.usedPercent >= 70 ? 'orange' : 'teal';
}

function Row({ row }) {
  return html`<${Table.Tr} data-testid=${`dfsp-row-${row.name}-${row.currency}`}>
    <${Table.Td}><${Anchor} href=${linkTo('dfsps', row.name)}>${row.name}</${Anchor}></${Table.Td}>
    <${Table.Td}>${row.currency}</${Table.Td}>
    <${Table.Td} ta="right" data-testid="position">${formatAmount(row.position)}</${Table.Td}>
    <${Table.Td} ta="right" data-testid="ndc">${formatAmount(row.ndc)}</${Table.Td}>
    <${Table.Td} ta="right" data-testid="headroom">${formatAmount(row.headroom)}</${Table.Td}>
    <${Table.Td} w=${160}>
      <${Progress} value=${Math.min(100, row.usedPercent)} color=${barColor(row)} aria-label=${`${row.usedPercent}% of its headroom used`} />
      <${Text} size="xs" c="dimmed" data-testid="used">${row.usedPercent}% used</${Text}>
    </${Table.Td}>
    <${Table.Td} ta="right" data-testid="liquidity">${formatAmount(row.liquidity)}</${Table.Td}>
    <${Table.Td}>
      <${Badge} color=${row.participantActive ? 'green' : 'gray'}>${row.participantActive ? 'active' : 'inactive'}</${Badge}>
      ${!row.accountActive && html` <${Badge} color="gray">account inactive</${Badge}>`}
    </${Table.Td}>
  </${Table.Tr}>`;
}

export function DfspsView() {
  const { data, error, loading } = useLoad((api) => loadStandings(api), [], REFRESH_MS);
  return html`<div>
    <${Group} justify="space-between" mb="md">
      <${Title} order=${2}>DFSPs</${Title}>
      ${loading && html`<${Loader} size="sm" />`}
    </${Group}>
    <${ErrorNote} error=${error} />
    <${Table} striped highlightOnHover data-testid="dfsps">
      <${Table.Thead}><${Table.Tr}>
        <${Table.Th}>DFSP</${Table.Th}><${Table.Th}>Currency</${Table.Th}><${Table.Th} ta="right">Position</${Table.Th}>
        <${Table.Th} ta="right">Net debit cap</${Table.Th}><${Table.Th} ta="right" title="what it can still pay out: the lower of its cap and its liquidity cover, less its position">Headroom</${Table.Th}><${Table.Th} title="position as a share of the lower of the cap and the cover">Used</${Table.Th}>
        <${Table.Th} ta="right">Liquidity cover</${Table.Th}><${Table.Th}>State</${Table.Th}>
      </${Table.Tr}></${Table.Thead}>
      <${Table.Tbody}>${(data ?? []).map((row) => html`<${Row} key=${`${row.name}/${row.currency}`} row=${row} />`)}</${Table.Tbody}>
    </${Table}>
  </div>`;
}
