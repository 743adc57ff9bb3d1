// The FSP simulators: SIM_WORKERS plain child processes (worker.js). Worker i serves the
// callback endpoints of the DFSPs it owns as payer on SIM_PORT + i and its payer bridge on
// BRIDGE_PORT + i; perf/provision.js registers DFSP j's endpoints on the port of worker
// j mod SIM_WORKERS and k6 calls the bridge of the payer's worker, so every callback a payer
// waits for lands on the process that waits for it and nothing is relayed between processes.
// This process only starts the workers, restarts one that dies and stops them all on SIGTERM.
// Settings: config.js.
import { fork } from 'node:child_process';
import { readConfig } from './config.js';

const config = readConfig(process.env);
const workerScript = new URL('./worker.js', import.meta.url).pathname;
const workers = [];
let stopping = false;

function start(index) {
  const child = fork(workerScript, [], { env: { ...process.env, SIM_WORKER_INDEX: String(index) }, stdio: 'inherit', serialization: 'json' });
  workers[index] = child;
  child.on('exit', (code, signal) => {
    if (stopping) return;
    process.stderr.write(`simulator worker ${index} exited with ${code ?? signal}; restarting\n`);
    start(index);
  });
}

for (let index = 0; index < config.workers; index += 1) start(index);

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    stopping = true;
    for (const child of workers) child.kill('SIGTERM');
    setTimeout(() => process.exit(0), 500).unref();
  });
}
