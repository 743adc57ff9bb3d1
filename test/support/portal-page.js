// Steps of an operator in the portal, for the browser tests: elements are found by their
// data-testid, and every wait names what it waited for when it times out. The functions given
// to page.evaluate and page.waitForFunction run in the page.
/* global document, window */
const WAIT_MS = 15000;

export const byTestId = (id) => `[data-testid="${id}"]`;

/** Waits until the element at `selector` shows text that `pattern` (a RegExp) matches; resolves to that text. */
export async function waitForText(page, selector, pattern, what) {
  try {
    const handle = await page.waitForFunction((css, source, flags) => {
      const text = document.querySelector(css)?.textContent;
      return text !== undefined && new RegExp(source, flags).test(text) ? text : false;
    }, { timeout: WAIT_MS }, selector, pattern.source, pattern.flags);
    return await handle.jsonValue();
  } catch (error) {
    const shown = await page.$eval(selector, (element) => element.textContent).catch(() => '(not on the page)');
    throw new Error(`${what}: ${selector} shows ${JSON.stringify(shown?.slice(0, 300))}`, { cause: error });
  }
}

export async function signIn(page, baseUrl, token) {
  await page.goto(`${baseUrl}/`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector(byTestId('token'));
  await page.type(byTestId('token'), token);
  await page.click(byTestId('sign-in'));
  await page.waitForSelector(byTestId('signed-in-as'), { timeout: WAIT_MS });
}

export async function signOut(page) {
  const [button] = await page.$$('xpath/.//button[normalize-space()="Sign out"]');
  await button.click();
  await page.waitForSelector(byTestId('token'));
}

export async function go(page, hash) {
  await page.evaluate((target) => { window.location.hash = target; }, hash);
}

/** Replaces an input's value as an operator would type it. */
export async function fill(page, testId, text) {
  const selector = byTestId(testId);
  await page.waitForSelector(selector);
  await page.click(selector, { count: 3 });
  await page.keyboard.press('Backspace');
  await page.type(selector, text);
}

/** Clicks an action's button, then Confirm in its dialog, and waits for the dialog to close. */
export async function confirmAction(page, buttonSelector) {
  await page.waitForSelector(`${buttonSelector}:not([disabled])`, { timeout: WAIT_MS });
  await page.click(buttonSelector);
  await page.waitForSelector(byTestId('confirm'), { visible: true, timeout: WAIT_MS });
  await page.click(byTestId('confirm'));
  await page.waitForSelector(byTestId('confirm'), { hidden: true, timeout: WAIT_MS });
}

/** Chooses `option` in the Mantine Select whose input has `testId`. */
export async function choose(page, testId, option) {
  await page.click(byTestId(testId));
  const xpath = `xpath/.//*[@role="option"][normalize-space()="${option}"]`;
  await page.waitForSelector(xpath, { visible: true, timeout: WAIT_MS });
  await (await page.$(xpath)).click();
}
