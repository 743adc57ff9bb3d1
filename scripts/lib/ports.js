// Free TCP ports on 127.0.0.1 for the processes tests, the demo and perf runs start.
import net from 'node:net';

// Below Linux's ephemeral range (32768 and up): outgoing connections take ports there, so a
// range found free in it can be taken again before its servers listen.
const RANGE_FIRST = 20_000;
const RANGE_SIZE = 12_000;

// Ports this process has handed out. A port handed out is free only until its listener binds,
// which can be seconds later (a test's switch starts its components one after another), so the
// next draw must not hand it out again: two components of one switch would then want one port.
const handedOut = new Set();

/**
 * One free port for a listener that another process opens later. It is drawn from below the
 * ephemeral range: a port the system hands out for `listen(0)` lies in that range, and an
 * outgoing connection (to Kafka, MySQL or a callback) can take it before the listener binds.
 */
export async function freePort() {
  return freePortRange(1);
}

async function portIsFree(port) {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A base port with `count` free ports after it (`preferred` first, when given). */
export async function freePortRange(count, preferred) {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const base = attempt === 0 && preferred ? preferred : RANGE_FIRST + Math.floor(Math.random() * (RANGE_SIZE - count));
    let free = true;
    for (let port = base; port < base + count && free; port += 1) free = !handedOut.has(port) && await portIsFree(port);
    if (free) {
      for (let port = base; port < base + count; port += 1) handedOut.add(port);
      return base;
    }
  }
  throw new Error(`no ${count} free ports in a row`);
}
