// Sign-in: the operator pastes their token; the portal asks the admin API who it is and what
// it may do, and keeps it in memory only (see api.js).
import { useState } from 'react';
import { Alert, Button, Center, Paper, PasswordInput, Stack, Text, Title } from '@mantine/core';
import { html } from './html.js';
import { createApi, describeError } from './api.js';
import { sessionOf } from './session.js';

export function SignIn({ onSignedIn }) {
  const [token, setToken] = useState('');
  const [pending, setPending] = useState(false);
  const [error, setError] = useState(null);
  const submit = async (event) => {
    event.preventDefault();
    setPending(true);
    setError(null);
    const api = createApi(token.trim());
    try {
      onSignedIn(sessionOf(api, await api.get('admin', '/operatorToken')));
    } catch (failure) {
      setError(describeError(failure));
      setPending(false);
    }
  };
  return html`<${Center} h="100vh">
    <${Paper} withBorder shadow="sm" p="xl" w=${420}>
      <form onSubmit=${submit}>
        <${Stack}>
          <${Title} order=${2}>Switch operations</${Title}>
          <${Text} c="dimmed" size="sm">Sign in with your operator token. It is kept only while this page is open.</${Text}>
          <${PasswordInput} label="Operator token" value=${token} onChange=${(event) => setToken(event.currentTarget.value)}
            autoComplete="off" required data-testid="token" />
          ${error && html`<${Alert} color="red" data-testid="sign-in-error">${error}</${Alert}>`}
          <${Button} type="submit" loading=${pending} data-testid="sign-in">Sign in</${Button}>
        </${Stack}>
      </form>
    </${Paper}>
  </${Center}>`;
}
