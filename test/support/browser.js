// A real headless Chromium (Debian's package, never a downloaded browser) driven over the
// DevTools protocol by puppeteer-core, for the portal's browser tests.
import { existsSync } from 'node:fs';
import puppeteer from 'puppeteer-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function chromiumPath() {
  const path = process.env.CHROMIUM_PATH ?? CANDIDATES.find((candidate) => existsSync(candidate));
  if (!path) throw new Error(`no Chromium found (${CANDIDATES.join(', ')}); make deps installs Debian's chromium package, or set CHROMIUM_PATH`);
  return path;
}

/**
 * A browser, and a page whose console errors and failed requests are collected (a test
 * asserts there were none). Root runs Chromium only without its sandbox.
 */
export async function openBrowser() {
  const browser = await puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check'],
  });
  const page = await browser.newPage();
  await page.setViewport({ width: 1400, height: 900 });
  const problems = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()} at ${message.location()?.url ?? 'the page'}`);
  });
  return { browser, page, problems };
}
