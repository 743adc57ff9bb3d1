// The HTTP side every test DFSP shares: it records each call it receives (method, path,
// headers, exact body), answers as FSPIOP does (202 to requests, 200 to callbacks), hands
// the call to `onCall` for the DFSP's own answer, and lets a test wait for a call.
import http from 'node:http';

function waitFor(name, received, waiters, predicate, timeoutMs) {
  return new Promise((resolve, reject) => {
    const check = () => {
      const found = received.find(predicate);
      if (!found) return;
      clearTimeout(timer);
      waiters.delete(check);
      resolve(found);
    };
    const timer = setTimeout(() => {
      waiters.delete(check);
      reject(new Error(`${name} received no matching call within ${timeoutMs} ms; got ${received.map((call) => `${call.method} ${call.path}`).join(', ')}`));
    }, timeoutMs);
    waiters.add(check);
    check();
  });
}

/** Resolves to `{ url, received, waitFor(predicate, timeoutMs), close() }`. */
export async function startRecordingServer({ name, port = 0, onCall = () => {} }) {
  const received = [];
  const waiters = new Set();
  const server = http.createServer((request, response) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => { text += chunk; });
    request.on('end', () => {
      const call = { method: request.method, path: request.url, headers: request.headers, rawBody: text, body: text ? JSON.parse(text) : undefined, at: Date.now() };
      received.push(call);
      for (const waiter of waiters) waiter();
      response.writeHead(['PUT', 'PATCH'].includes(request.method) ? 200 : 202).end();
      onCall(call);
    });
  });
  await new Promise((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    received,
    waitFor: (predicate, timeoutMs = 15000) => waitFor(name, received, waiters, predicate, timeoutMs),
    // The switch keeps connections alive; close them, or close() waits for their idle timeout.
    close: () => new Promise((resolve) => { server.close(resolve); server.closeAllConnections(); }),
  };
}
