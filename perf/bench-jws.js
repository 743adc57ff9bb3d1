// Per-message cost of FSPIOP JWS: median microseconds to sign and to verify one message with
// a 700-byte body, RS256 (2048-bit RSA, as Mojaloop signs) and ES256 (P-256), one at a time.
// Run: node perf/bench-jws.js [iterations]
import { generateKeyPairSync } from 'node:crypto';
import { signFspiopMessage, verifyFspiopMessage } from '../platform/fspiop/jws.js';

const iterations = Number(process.argv[2] ?? 2000);
const body = JSON.stringify({ transferId: '0195b3c2-aaaa-7bbb-8ccc-000000000001', padding: 'x'.repeat(634) });
const headers = { date: new Date().toUTCString(), 'fspiop-source': 'payerfsp', 'fspiop-destination': 'payeefsp' };
const request = { method: 'POST', uri: '/transfers', headers, body };

function median(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timed(action) {
  const samples = [];
  for (let i = 0; i < iterations; i += 1) {
    const started = process.hrtime.bigint();
    await action();
    samples.push(Number(process.hrtime.bigint() - started) / 1000);
  }
  return median(samples).toFixed(0);
}

for (const [alg, type, options] of [['RS256', 'rsa', { modulusLength: 2048 }], ['ES256', 'ec', { namedCurve: 'P-256' }]]) {
  const { privateKey, publicKey } = generateKeyPairSync(type, options);
  const signed = { ...headers, ...await signFspiopMessage({ privateKey, ...request }) };
  const signUs = await timed(() => signFspiopMessage({ privateKey, ...request }));
  const verifyUs = await timed(async () => {
    const problem = await verifyFspiopMessage({ ...request, headers: signed, keys: [publicKey] });
    if (problem) throw new Error(problem);
  });
  console.log(`${alg}: body ${Buffer.byteLength(body)} bytes, ${iterations} iterations: sign median ${signUs} µs, verify median ${verifyUs} µs`);
}
