// Who is signed in, shared with every view: the API client holding the token, the token's
// subject, and whether it may act (its write scopes).
import { createContext, useCallback, useContext, useEffect, useRef, useState } from 'react';

export const SessionContext = createContext(null);

export function useSession() {
  return useContext(SessionContext);
}

/** The scopes a token needs for the portal's actions. */
export const WRITE_SCOPES = Object.freeze(['admin:write', 'settlement:write']);

/** A session from /operatorToken's answer: may act only with every write scope. */
export function sessionOf(api, { subject, scopes }) {
  const missing = WRITE_SCOPES.filter((scope) => !scopes.includes(scope));
  return Object.freeze({ api, subject, scopes, canWrite: missing.length === 0, missingScopes: missing });
}

/**
 * Loads what `load(api)` returns, again every `refreshMs` when given, and on reload(). The
 * answer of a load that a newer one overtook is dropped.
 */
export function useLoad(load, deps, refreshMs) {
  const { api } = useSession();
  const [state, setState] = useState({ loading: true, data: null, error: null });
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    try {
      const data = await load(api);
      if (mine === generation.current) setState({ loading: false, data, error: null });
    } catch (error) {
      if (mine === generation.current) setState((previous) => ({ loading: false, data: previous.data, error }));
    }
  }, [api, ...deps]);
  useEffect(() => {
    reload();
    if (!refreshMs) return undefined;
    const timer = setInterval(reload, refreshMs);
    return () => clearInterval(timer);
  }, [reload, refreshMs]);
  return { ...state, reload };
}
