// The portal's entry point, bundled by portal/build.mjs.
import '@mantine/core/styles.css';
import { createRoot } from 'react-dom/client';
import { MantineProvider } from '@mantine/core';
import { html } from './html.js';
import { App } from './app.js';

createRoot(document.getElementById('root')).render(html`<${MantineProvider}><${App} /></${MantineProvider}>`);
