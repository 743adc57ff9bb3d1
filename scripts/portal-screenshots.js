// Screenshots of the portal's main views for the README (docs/images/portal-*.png), taken in
// Debian's headless Chromium against the running local switch after `make demo`:
//   source scripts/env.sh && node scripts/portal-screenshots.js
import { mkdirSync } from 'node:fs';
import { openBrowser } from '../test/support/browser.js';
import { byTestId, choose, fill, go, signIn } from '../test/support/portal-page.js';

const OFFSET = Number(process.env.SERVICE_PORT_OFFSET ?? 0);
const PORTAL_URL = process.env.PORTAL_URL ?? `http://127.0.0.1:${3010 + OFFSET}`;
const OUT = new URL('../docs/images/', import.meta.url).pathname;
const PAYEE_MSISDN = '27710000002';

async function shoot(page, name, ready) {
  await page.waitForSelector(ready, { timeout: 15000 });
  await new Promise((resolve) => setTimeout(resolve, 500));
  await page.screenshot({ path: `${OUT}portal-${name}.png` });
  process.stdout.write(`${OUT}portal-${name}.png\n`);
}

async function main() {
  mkdirSync(OUT, { recursive: true });
  const { browser, page, problems } = await openBrowser();
  try {
    await signIn(page, PORTAL_URL, process.env.OPERATOR_TOKEN_READ_WRITE);
    await shoot(page, 'dfsps', `${byTestId('dfsps')} tbody tr`);
    await go(page, '#/dfsps/payerfsp');
    await shoot(page, 'dfsp', byTestId('dfsp-keys'));
    await go(page, '#/settlement');
    await shoot(page, 'settlement', byTestId('settlement'));
    await go(page, '#/transfers');
    await choose(page, 'search-kind', 'Party (MSISDN)');
    await fill(page, 'search-text', PAYEE_MSISDN);
    await page.click(byTestId('search'));
    await page.waitForSelector(`${byTestId('transfer-results')} a`, { timeout: 15000 });
    await page.click(`${byTestId('transfer-results')} a`);
    await shoot(page, 'transfer', byTestId('transfer-history'));
    await go(page, '#/audit');
    await shoot(page, 'audit', byTestId('audit-entry'));
    if (problems.length > 0) throw new Error(problems.join('\n'));
  } finally {
    await browser.close();
  }
}

main().catch((error) => {
  console.error(`screenshots failed: ${error.message}`);
  process.exitCode = 1;
});
