// The payee side's fault switch for the fault campaign (perf/chaos.js): each simulator
// process keeps its own switch, set through its bridge port (`POST /fault`, worker.js).
//   silent: a request to a payee is never answered (the connection is held, then dropped
//           when the fault ends), and the payee sends nothing back: a DFSP that went dark;
//   error:  a request to a payee is answered 500 and not acted on;
//   none:   normal service.
// A fault ends by itself after `forMs`, so a campaign that dies leaves no payee broken.
export const FAULT_MODES = Object.freeze(['none', 'silent', 'error']);

export function createFaultSwitch(now = Date.now) {
  let mode = 'none';
  let until = 0;
  const held = new Set();
  let timer;
  const release = () => {
    for (const response of held) response.destroy();
    held.clear();
  };
  return {
    /** Sets the fault; `forMs` bounds it. Returns the state. */
    set(nextMode, forMs = 60_000) {
      if (!FAULT_MODES.includes(nextMode)) throw new Error(`fault mode must be one of ${FAULT_MODES.join(', ')}`);
      clearTimeout(timer);
      mode = nextMode;
      until = nextMode === 'none' ? 0 : now() + forMs;
      if (nextMode === 'none') release();
      else timer = setTimeout(() => this.set('none'), forMs).unref();
      return this.state();
    },
    state: () => ({ mode: now() < until ? mode : 'none', until, held: held.size }),
    /**
     * Applies the fault to a request a payee received; true when the fault took it (the
     * caller must then neither answer nor act on it).
     */
    intercept(response) {
      if (now() >= until || mode === 'none') return false;
      if (mode === 'error') {
        response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"payee fault injected"}');
        return true;
      }
      held.add(response);
      response.on('close', () => held.delete(response));
      return true;
    },
  };
}
