// A DFSP for discovery tests, served over real HTTP. As a payee it answers GET /parties by
// PUTting the party back to the switch (or PUT …/error with 3204 for a party it does not
// hold, or nothing when told to stay silent); it records every call it receives, and it
// sends FSPIOP requests to the account-lookup edge with the headers a real DFSP sends, signed
// with the test run's key of its name (jws-keys.js) unless a test sets its own signature.
import { startRecordingServer } from './recording-server.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';
import { signedFetch } from './jws-keys.js';
import { onboardDfsp } from './admin-api.js';

export { dfspHeaders as fspiopHeaders } from '../../scripts/lib/fspiop-headers.js';

/** The endpoints a DFSP registers for discovery, beyond scripts/lib/onboarding.js's standard set. */
export function discoveryEndpoints(base) {
  return [
    ['FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_GET', `${base}/parties/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}`],
    ['FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT', `${base}/parties/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}`],
    ['FSPIOP_CALLBACK_URL_PARTIES_SUB_ID_PUT_ERROR', `${base}/parties/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}/error`],
    ['FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT', `${base}/participants/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}`],
    ['FSPIOP_CALLBACK_URL_PARTICIPANT_SUB_ID_PUT_ERROR', `${base}/participants/{{partyIdType}}/{{partyIdentifier}}/{{partySubIdOrType}}/error`],
    ['FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT', `${base}/participants/{{requestId}}`],
    ['FSPIOP_CALLBACK_URL_PARTICIPANT_BATCH_PUT_ERROR', `${base}/participants/{{requestId}}/error`],
  ];
}

/** Onboards `dfsp` through the admin API's `request` with the standard endpoints and those of discovery. */
export async function onboardForDiscovery(request, dfsp) {
  await onboardDfsp(request, { name: dfsp.name, endpointBase: dfsp.url });
  for (const [type, value] of discoveryEndpoints(dfsp.url)) {
    const result = await request('POST', `/participants/${dfsp.name}/endpoints`, { type, value });
    if (result.status !== 201) throw new Error(`${dfsp.name}'s ${type}: ${result.status} ${result.text}`);
  }
}

/** The bytes a payee answers with: deliberately spaced, so a test can see they pass unchanged. */
export function partyAnswer(dfspName, [type, id, subId]) {
  const partyIdInfo = { partyIdType: type, partyIdentifier: id, ...(subId ? { partySubIdOrType: subId } : {}), fspId: dfspName };
  return JSON.stringify({ party: { partyIdInfo, name: `Customer ${id} of ${dfspName}`, personalInfo: { complexName: { firstName: 'Ada', lastName: 'Lovelace' } } } }, null, 1);
}

const PARTY_BEHAVIOURS = new Set(['answer', 'silent']);

/**
 * Starts the DFSP. `switchUrl` is the account-lookup edge. `dfsp.parties` is a Set of
 * 'Type/ID[/SubId]' it serves. `dfsp.setBehaviour(party, behaviour)` makes it 'silent' to
 * lookups of one such key ('answer' otherwise): chosen per party, so that tests sharing the
 * DFSP do not depend on the order they run in. With `serverTls` it serves its endpoints over
 * HTTPS and admits only callers with a client certificate (recording-server.js).
 */
export async function startPartyDfsp({ name, switchUrl, serverTls }) {
  const behaviours = new Map();
  const dfsp = {
    name,
    parties: new Set(),
    sent: [],
    setBehaviour(party, behaviour) {
      if (!PARTY_BEHAVIOURS.has(behaviour)) throw new Error(`unknown party behaviour ${behaviour}; one of ${[...PARTY_BEHAVIOURS].join(', ')}`);
      behaviours.set(party, behaviour);
    },
    behaviourFor: (party) => behaviours.get(party) ?? 'answer',
  };
  const server = await startRecordingServer({
    name,
    tls: serverTls,
    onCall: (call) => {
      if (call.method === 'GET' && call.path.startsWith('/parties/')) setImmediate(() => answerLookup(dfsp, call, switchUrl));
    },
  });
  dfsp.send = (method, path, options) => sendToSwitch(dfsp, switchUrl, method, path, options);
  return Object.assign(dfsp, server);
}

/**
 * Sends a request to the switch as this DFSP. `body` is JSON-encoded unless `raw` text is
 * given; `headers` replace the defaults. Resolves to `{ status, body }`.
 */
async function sendToSwitch(dfsp, switchUrl, method, path, { resource = path.split('/')[1], destination, body, raw, headers } = {}) {
  const accept = method !== 'PUT';
  const response = await signedFetch(`${switchUrl}${path}`, {
    method,
    headers: headers ?? dfspHeaders(resource, dfsp.name, destination, { accept }),
    body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** The payee's side of discovery: its party, or 3204, PUT back to the payer through the switch. */
async function answerLookup(dfsp, call, switchUrl) {
  const segments = call.path.split('/').slice(2).map(decodeURIComponent);
  if (dfsp.behaviourFor(segments.join('/')) !== 'answer') return;
  const payer = call.headers['fspiop-source'];
  const known = dfsp.parties.has(segments.join('/'));
  const path = `/parties/${segments.map(encodeURIComponent).join('/')}${known ? '' : '/error'}`;
  const raw = known ? partyAnswer(dfsp.name, segments) : JSON.stringify({ errorInformation: { errorCode: '3204', errorDescription: 'Party not found' } });
  const result = await sendToSwitch(dfsp, switchUrl, 'PUT', path, { destination: payer, raw }).catch((error) => ({ error: error.message }));
  dfsp.sent.push({ path, raw, ...result });
}

/** Sends with `send()`, then waits for the first PUT to `dfsp` on a path starting with `path` that came after it. */
export async function answerAfter(dfsp, path, send) {
  const seen = dfsp.received.length;
  const sent = await send();
  const answer = await dfsp.waitFor((call) => dfsp.received.indexOf(call) >= seen && call.method === 'PUT' && call.path.startsWith(path));
  return { sent, answer };
}

/** Which DFSP the oracle gives for the party of `path` (`/participants/…`), asked by `asker` as a DFSP asks; undefined for none. */
export async function ownerOf(asker, path) {
  const { sent, answer } = await answerAfter(asker, path, () => asker.send('GET', path));
  if (sent.status !== 202) throw new Error(`GET ${path}: ${sent.status} ${JSON.stringify(sent.body)}`);
  return answer.path.endsWith('/error') ? undefined : answer.body.fspId;
}
