// The portal's client of the operator APIs, through the portal's own /api/<api>/… forwarding.
// The operator's token lives only in this closure: never in a URL, a cookie or the browser's
// storage, so closing or reloading the page signs the operator out. Answers are parsed with
// numbers kept as their decimal text (lossless-json), so no amount ever becomes a Number.
import { parse } from 'lossless-json';

export class ApiError extends Error {
  constructor(status, body, api) {
    super(body?.errorInformation?.errorDescription ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
    this.api = api;
  }
}

const keepNumberText = (text) => text;

function parseBody(text) {
  if (!text) return null;
  try {
    return parse(text, null, keepNumberText);
  } catch {
    return { errorInformation: { errorCode: '', errorDescription: text.slice(0, 200) } };
  }
}

export function createApi(token) {
  async function call(api, method, path, body) {
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`/api/${api}${path}`, {
      method, headers, cache: 'no-store', credentials: 'omit', body: body === undefined ? undefined : JSON.stringify(body),
    });
    const value = parseBody(await response.text());
    if (!response.ok) throw new ApiError(response.status, value, api);
    return value;
  }
  return Object.freeze({
    get: (api, path) => call(api, 'GET', path),
    post: (api, path, body) => call(api, 'POST', path, body ?? {}),
    put: (api, path, body) => call(api, 'PUT', path, body ?? {}),
    remove: (api, path) => call(api, 'DELETE', path),
  });
}

const API_NAMES = Object.freeze({ admin: 'admin API', settlement: 'settlement API', 'oracle-admin': 'account lookup admin API' });

/** What went wrong, in the operator's words rather than the API's JSON. */
export function describeError(error) {
  if (!(error instanceof ApiError)) return `The portal could not reach the switch (${error.message}). Check the connection and try again.`;
  const information = error.body?.errorInformation ?? {};
  const code = information.errorCode;
  const detail = (information.errorDescription ?? '').replace(/^[^-]*- /, '');
  const api = API_NAMES[error.api] ?? 'switch';
  if (error.status === 401) return 'The switch does not recognise this token. Sign out and sign in again with a valid operator token.';
  if (error.status === 403) return `This token may not make changes: ${detail || 'it lacks the write scope'}. Sign in with the read-write token to act.`;
  if (code === '2003') return `The ${api} is not answering right now (${detail}). Try again in a moment.`;
  // FSPIOP's 32xx are identifiers that name nothing the switch knows (3208: no such transfer).
  if (error.status === 404 || /^32\d\d$/.test(code ?? '')) return `Not found: ${detail || 'the switch has no such record'}.`;
  if (code && code.startsWith('3')) return `The ${api} refused the request as invalid: ${detail}.`;
  return `The ${api} could not do this: ${detail || `HTTP ${error.status}`}${code ? ` (error ${code})` : ''}.`;
}
