// Every change the portal makes goes through ConfirmAction: the operator sees what will happen
// (amounts before and after where there are amounts) and confirms; the request is sent once
// (the button is held while it is in flight, and each action carries its own idempotency key,
// a transferId or the target state, so a retry repeats rather than doubles it); a read-only
// token is refused before anything is sent, with the reason.
import { useState } from 'react';
import { Alert, Button, Group, Modal, Stack, Text } from '@mantine/core';
import { html } from './html.js';
import { describeError } from './api.js';
import { useSession } from './session.js';

export function ReadOnlyRefusal({ session, onClose }) {
  return html`<${Alert} color="orange" title="Refused: read-only token" withCloseButton onClose=${onClose} data-testid="read-only-refusal">
    You are signed in as ${session.subject}, whose token lacks ${session.missingScopes.join(' and ')}.
    The portal does not send changes with it; sign in with the read-write token to act.
  </${Alert}>`;
}

/** A button that asks for confirmation, then runs `perform()` once; `onDone` after success. */
export function ConfirmAction({ label, title, details, perform, onDone, color = 'blue', disabled = false, testId }) {
  const session = useSession();
  const [open, setOpen] = useState(false);
  const [refused, setRefused] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState(null);
  const start = () => {
    setError(null);
    if (!session.canWrite) setRefused(true);
    else setOpen(true);
  };
  const confirm = async () => {
    setPending(true);
    try {
      await perform();
      setOpen(false);
      onDone?.();
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setPending(false);
    }
  };
  return html`<${Stack} gap="xs">
    <${Button} color=${color} onClick=${start} disabled=${disabled} data-testid=${testId}>${label}</${Button}>
    ${refused && html`<${ReadOnlyRefusal} session=${session} onClose=${() => setRefused(false)} />`}
    <${Modal} opened=${open} onClose=${() => !pending && setOpen(false)} title=${title} centered>
      <${Stack}>
        ${typeof details === 'string' ? html`<${Text}>${details}</${Text}>` : details}
        ${error && html`<${Alert} color="red" title="Not done" data-testid="action-error">${error}</${Alert}>`}
        <${Group} justify="flex-end">
          <${Button} variant="default" onClick=${() => setOpen(false)} disabled=${pending}>Cancel</${Button}>
          <${Button} color=${color} onClick=${confirm} loading=${pending} data-testid="confirm">Confirm</${Button}>
        </${Group}>
      </${Stack}>
    </${Modal}>
  </${Stack}>`;
}

/** An API error shown in the operator's terms. */
export function ErrorNote({ error }) {
  if (!error) return null;
  return html`<${Alert} color="red" title="The switch did not answer as expected" data-testid="load-error">${describeError(error)}</${Alert}>`;
}
