// The portal's frame: sign-in, then the navigation and the view the fragment names.
import { useState } from 'react';
import { AppShell, Badge, Button, Group, NavLink, Title } from '@mantine/core';
import { html } from './html.js';
import { SessionContext } from './session.js';
import { SignIn } from './sign-in.js';
import { linkTo, useRoute } from './router.js';
import { DfspsView } from './views/dfsps.js';
import { DfspView } from './views/dfsp.js';
import { SettlementView } from './views/settlement.js';
import { TransfersView } from './views/transfers.js';
import { DeadLettersView } from './views/dead-letters.js';
import { AuditView } from './views/audit.js';

const VIEWS = Object.freeze([
  { view: 'dfsps', label: 'DFSPs', render: ({ rest }) => (rest[0] ? html`<${DfspView} name=${rest[0]} />` : html`<${DfspsView} />`) },
  { view: 'settlement', label: 'Settlement', render: () => html`<${SettlementView} />` },
  { view: 'transfers', label: 'Transfers', render: ({ rest }) => html`<${TransfersView} initial=${rest[0]} />` },
  { view: 'dead-letters', label: 'Dead letters', render: () => html`<${DeadLettersView} />` },
  { view: 'audit', label: 'Audit', render: () => html`<${AuditView} />` },
]);

function Shell({ session, onSignOut }) {
  const route = useRoute();
  const current = VIEWS.find((entry) => entry.view === route.view) ?? VIEWS[0];
  return html`<${AppShell} header=${{ height: 56 }} navbar=${{ width: 200, breakpoint: 'sm' }} padding="md">
    <${AppShell.Header}>
      <${Group} h="100%" px="md" justify="space-between">
        <${Title} order=${3}>Switch operations</${Title}>
        <${Group}>
          <${Badge} color=${session.canWrite ? 'green' : 'orange'} data-testid="signed-in-as">
            ${session.subject}${session.canWrite ? '' : ' (read-only)'}
          </${Badge}>
          <${Button} variant="subtle" onClick=${onSignOut}>Sign out</${Button}>
        </${Group}>
      </${Group}>
    </${AppShell.Header}>
    <${AppShell.Navbar} p="xs">
      ${VIEWS.map((entry) => html`<${NavLink} key=${entry.view} href=${linkTo(entry.view)} label=${entry.label}
        active=${entry === current} data-testid=${`nav-${entry.view}`} />`)}
    </${AppShell.Navbar}>
    <${AppShell.Main}>${current.render(route)}</${AppShell.Main}>
  </${AppShell}>`;
}

export function App() {
  const [session, setSession] = useState(null);
  if (!session) return html`<${SignIn} onSignedIn=${setSession} />`;
  return html`<${SessionContext.Provider} value=${session}>
    <${Shell} session=${session} onSignOut=${() => setSession(null)} />
  </${SessionContext.Provider}>`;
}
