// A committed transfer's payer always learns it, whatever happened to the answer of its
// POST /transfers. Under a Kafka restart or an edge killed under load, a payer may get no
// usable answer (the connection dropped, or 503/2003) while the switch did take the transfer,
// which then commits: the baseline's "3 transfers COMMITTED whose payer never saw completion"
// (issue #12). Here a proxy in front of the transfers edge passes every POST /transfers on
// but drops the connection instead of the answer, twice per transfer. The load-test payer
// (perf/simulators/bridge.js) must not take that as a failure: it resends the same transfer
// (a duplicate to the switch) and waits for the callback, or asks GET /transfers/{ID}; then
// the validity gate finds what the payers were told equal to what MySQL committed. The payers
// call the proxy over HTTP; with mutual TLS it calls the edge with the certificate of the
// request's FSPIOP-Source.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { freshTarget, runPerf } from '../../perf/run.js';
import { unsignedFetch } from '../support/jws-keys.js';

const DROPS_PER_TRANSFER = 2;
let target;
let proxy;

/** Forwards to `upstream`; the first DROPS_PER_TRANSFER POST /transfers of each id lose their answer. */
function startDroppingProxy(upstream) {
  const drops = new Map();
  const server = http.createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    const forwarded = await unsignedFetch(`${upstream}${request.url}`, { method: request.method, headers: request.headers, body: body || undefined });
    const text = await forwarded.text();
    const id = request.method === 'POST' && request.url === '/transfers' ? JSON.parse(body).transferId : undefined;
    if (id && (drops.get(id) ?? 0) < DROPS_PER_TRANSFER) {
      drops.set(id, (drops.get(id) ?? 0) + 1);
      request.socket.destroy();
      return;
    }
    response.writeHead(forwarded.status, { 'content-type': forwarded.headers.get('content-type') ?? 'application/json' }).end(text);
  });
  server.listen(0, '127.0.0.1');
  server.drops = drops;
  return server;
}

before(async () => {
  target = await freshTarget('transfer');
  proxy = startDroppingProxy(target.transfersUrl);
  await once(proxy, 'listening');
  target.transfersUrl = `http://127.0.0.1:${proxy.address().port}`;
});

after(async () => {
  proxy?.close();
  await target?.close();
});

test('every transfer whose answer was lost is known to its payer as committed; the gate passes', { timeout: 150_000 }, async () => {
  const lines = [];
  const result = await runPerf(target, { profile: 'smoke', mode: 'transfer', tps: 5, transfers: 40 }, (line) => lines.push(line));
  const committed = result.gate.details.states.COMMITTED?.n ?? 0;
  const completed = result.summary.metrics.completed_transactions?.values.count ?? 0;
  assert.ok(proxy.drops.size >= 30, `the proxy dropped answers of ${proxy.drops.size} transfers`);
  assert.ok(committed >= 30, `committed ${committed}\n${lines.join('\n')}`);
  assert.equal(completed, committed, `the payers were told of ${completed} of ${committed} committed transfers\n${lines.join('\n')}`);
  assert.ok(result.gate.pass, `gate: ${result.gate.reasons.join('; ')}`);
});
