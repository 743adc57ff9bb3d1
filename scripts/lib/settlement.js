// Settling as a scheme operator's script does it, through the settlement API alone: close
// the open window, create a settlement over every closed window for a deferred net model,
// and move every account through PS_TRANSFERS_RECORDED → RESERVED → COMMITTED → SETTLED.
// Used by `make demo` and by the soak, which settles on a schedule.

export const SETTLEMENT_STEPS = Object.freeze(['PS_TRANSFERS_RECORDED', 'PS_TRANSFERS_RESERVED', 'PS_TRANSFERS_COMMITTED', 'SETTLED']);

function expect(response, statuses, what) {
  if (!statuses.includes(response.status)) throw new Error(`${what}: HTTP ${response.status} ${response.text}`);
  return response;
}

/**
 * The active deferred net model for `currency` (its own, else the default), by the admin API.
 * With `ownOnly`, only a model of that currency, and null rather than an error without one (a
 * currency settled gross has none).
 */
export async function deferredNetModel(adminRequest, currency, { ownOnly = false } = {}) {
  const models = expect(await adminRequest('GET', '/settlementModels'), [200], 'settlement models').body;
  const net = models.filter((model) => model.isActive !== false && model.isActive !== 0
    && model.settlementGranularity === 'NET' && model.settlementDelay === 'DEFERRED');
  const model = net.find((candidate) => candidate.currency === currency) ?? (ownOnly ? undefined : net.find((candidate) => !candidate.currency));
  if (!model && ownOnly) return null;
  if (!model) throw new Error(`no active deferred net settlement model for ${currency}`);
  return model.name;
}

/** Closes the open window; returns the closed window's id, or null when it held no transfer. */
export async function closeOpenWindow(request, reason) {
  const [open] = expect(await request('GET', '/settlementWindows?state=OPEN'), [200], 'open window').body;
  const closed = await request('POST', `/settlementWindows/${open.settlementWindowId}`, { state: 'CLOSED', reason });
  if (closed.status === 400 && /is empty/.test(closed.body?.errorInformation?.errorDescription ?? '')) return null;
  expect(closed, [200], `close window ${open.settlementWindowId}`);
  return open.settlementWindowId;
}

/** Windows a new settlement may take: CLOSED or ABORTED (the API answers 3100 when there are none). */
async function settleableWindowIds(request) {
  const ids = [];
  for (const state of ['CLOSED', 'ABORTED']) {
    const found = await request('GET', `/settlementWindows?state=${state}`);
    if (found.status === 200) ids.push(...found.body.map((window) => window.settlementWindowId));
  }
  return ids.sort((a, b) => a - b);
}

/** Every account of `settlement` moved to `state`, in one PUT. */
async function moveAccounts(request, settlement, state, reason) {
  const participants = settlement.participants.map((participant) => ({
    id: participant.id, accounts: participant.accounts.map((account) => ({ id: account.id, state, reason })),
  }));
  const answer = expect(await request('PUT', `/settlements/${settlement.id}`, { participants }), [200], `settlement ${settlement.id} → ${state}`).body;
  const refused = answer.participants.flatMap((participant) => participant.accounts).filter((account) => account.errorInformation);
  if (refused.length > 0) throw new Error(`settlement ${settlement.id} → ${state}: ${refused.map((account) => `${account.id} ${account.errorInformation.errorDescription}`).join('; ')}`);
  return answer;
}

/**
 * Closes the open window and settles every closed window with `modelName`, all the way to
 * SETTLED. Returns null when there was nothing to settle, else the settlement as created
 * (with each account's net amount) and its final state.
 */
export async function closeAndSettle(request, { modelName, reason }) {
  await closeOpenWindow(request, reason);
  return settleWindows(request, { modelName, reason, windowIds: await settleableWindowIds(request) });
}

/**
 * Settles `currency` under `modelName` over every window still holding content of that
 * currency to settle (CLOSED or ABORTED content), whatever the window's own state: a window
 * another currency's settlement took is PENDING_SETTLEMENT until each of its currencies is
 * settled. Closes nothing. Returns what closeAndSettle returns.
 */
export async function settleCurrency(request, { modelName, currency, reason }) {
  const ids = [];
  for (const state of ['CLOSED', 'ABORTED', 'PENDING_SETTLEMENT']) {
    const found = await request('GET', `/settlementWindows?state=${state}`);
    if (found.status !== 200) continue;
    const holding = found.body.filter((window) => (window.content ?? []).some((content) => content.currencyId === currency && ['CLOSED', 'ABORTED'].includes(content.state)));
    ids.push(...holding.map((window) => window.settlementWindowId));
  }
  return settleWindows(request, { modelName, reason, windowIds: ids.sort((a, b) => a - b) });
}

/** One settlement over `windowIds` under `modelName`, moved all the way to SETTLED; null when there is nothing to settle. */
async function settleWindows(request, { modelName, reason, windowIds }) {
  if (windowIds.length === 0) return null;
  const created = await request('POST', '/settlements', { settlementModel: modelName, reason, settlementWindows: windowIds.map((id) => ({ id })) });
  if (created.status === 400 && /Inapplicable windows/.test(created.text)) return null;
  const settlement = expect(created, [200], 'create settlement').body;
  let state = settlement.state;
  for (const step of SETTLEMENT_STEPS) state = (await moveAccounts(request, settlement, step, reason)).state;
  return { settlement, windowIds, state };
}
