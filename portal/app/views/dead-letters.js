// Dead letters: per handler, the messages it gave up on and why; replay one, or every one of
// a handler, after the cause is fixed. A replay is recorded by the admin API, so a letter is
// never replayed twice by a repeated request.
import { Badge, Code, Group, Loader, Stack, Table, Text, Title } from '@mantine/core';
import { html } from '../html.js';
import { useLoad, useSession } from '../session.js';
import { ConfirmAction, ErrorNote } from '../confirm.js';

function byHandler(letters) {
  const groups = new Map();
  for (const letter of letters) groups.set(letter.handler, [...(groups.get(letter.handler) ?? []), letter]);
  return [...groups.entries()];
}

function Letter({ api, letter, onDone }) {
  return html`<${Table.Tr} data-testid=${`letter-${letter.handler}-${letter.address}`}>
    <${Table.Td}><${Code}>#${letter.address}</${Code}></${Table.Td}>
    <${Table.Td}>${letter.deadLetteredAt}</${Table.Td}>
    <${Table.Td}><${Text} fw=${600}>${letter.error?.name}</${Text}><${Text} size="sm">${letter.error?.message}</${Text}>
      <${Text} size="xs" c="dimmed">after ${letter.failures} attempt(s); key ${letter.key ?? '—'}</${Text}></${Table.Td}>
    <${Table.Td} maw=${360}><${Code} block>${letter.preview ?? `(value left out: ${letter.valueBytes} bytes)`}</${Code}></${Table.Td}>
    <${Table.Td}>${letter.replayedAt
      ? html`<${Badge} color="gray" data-testid="replayed">replayed ${letter.replayedAt}</${Badge}>`
      : html`<${ConfirmAction} label="Replay…" title=${`Replay #${letter.address} of ${letter.handler}`} testId="replay" onDone=${onDone}
          details=${`The message goes back onto ${letter.topic} for the ${letter.handler} handler. Replay only once its cause is fixed; the handler applies nothing twice.`}
          perform=${() => api.post('admin', `/deadLetters/${letter.handler}/replay`, { letters: [letter.address] })} />`}</${Table.Td}>
  </${Table.Tr}>`;
}

export function DeadLettersView() {
  const { api } = useSession();
  const { data, error, loading, reload } = useLoad((client) => client.get('admin', '/deadLetters'), []);
  const groups = byHandler(data ?? []);
  return html`<${Stack}>
    <${Group} justify="space-between"><${Title} order=${2}>Dead letters</${Title}>${loading && html`<${Loader} size="sm" />`}</${Group}>
    <${ErrorNote} error=${error} />
    ${data && groups.length === 0 && html`<${Text} data-testid="no-dead-letters">No handler has a dead letter.</${Text}>`}
    ${groups.map(([handler, letters]) => {
      const waiting = letters.filter((letter) => !letter.replayedAt).length;
      return html`<div key=${handler} data-testid=${`dead-letters-${handler}`}>
        <${Group} justify="space-between" mb="xs"><${Title} order=${4}>${handler}: ${letters.length} (${waiting} not replayed)</${Title}>
          ${waiting > 0 && html`<${ConfirmAction} label="Replay all…" title=${`Replay every dead letter of ${handler}`} testId="replay-all" onDone=${reload}
            details=${`${waiting} message(s) go back onto their topic for the ${handler} handler.`}
            perform=${() => api.post('admin', `/deadLetters/${handler}/replay`, { all: true })} />`}</${Group}>
        <${Table}><${Table.Tbody}>${letters.map((letter) => html`<${Letter} key=${letter.address} api=${api} letter=${letter} onDone=${reload} />`)}</${Table.Tbody}></${Table}>
      </div>`;
    })}
  </${Stack}>`;
}
