// Cheap FSPIOP plumbing for the simulators: bodies and one keep-alive HTTP client.
import http from 'node:http';

// Idle keep-alive sockets are dropped after 4 s, before the servers' 5 s keepAliveTimeout
// (Node's default) closes them under a request.
const agent = new http.Agent({ keepAlive: true, maxSockets: 512, timeout: 4_000 });

/**
 * Sends a request; resolves to `{ status, text }`, or `{ status: 0, text: error }` on a network
 * error. A request on a reused keep-alive socket the server had just closed is sent once more
 * (Node's advice; FSPIOP requests are idempotent: a duplicate is recognised by its hash).
 */
export function send(url, method, requestHeaders, body, retry = true) {
  return new Promise((resolve) => {
    const request = http.request(url, { method, agent, headers: requestHeaders }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => { text += chunk; });
      response.on('end', () => resolve({ status: response.statusCode, text }));
    });
    request.on('error', (error) => {
      if (retry && request.reusedSocket && (error.code === 'ECONNRESET' || error.message === 'socket hang up')) {
        resolve(send(url, method, requestHeaders, body, false));
      } else resolve({ status: 0, text: error.message });
    });
    request.end(body);
  });
}

/** Reads a request body as text. */
export function readBody(request) {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => { text += chunk; });
    request.on('end', () => resolve(text));
    request.on('error', reject);
  });
}

export function reply(response, status, body) {
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, text ? { 'content-type': 'application/json' } : {}).end(text);
}
