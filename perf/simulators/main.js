// The FSP simulators: SIM_WORKERS processes (node:cluster), each serving every DFSP's
// callback endpoint on SIM_PORT (shared) and a payer bridge on BRIDGE_PORT + its index. The
// primary only relays callbacks to the process that owns them. Settings: config.js.
import cluster from 'node:cluster';
import { readConfig } from './config.js';

const config = readConfig(process.env);
cluster.schedulingPolicy = cluster.SCHED_NONE;
cluster.setupPrimary({ exec: new URL('./worker.js', import.meta.url).pathname });
const workers = [];
let stopping = false;

function fork(index) {
  const child = cluster.fork({ SIM_WORKER_INDEX: String(index) });
  workers[index] = child;
  child.on('message', (message) => {
    if (message?.relay) workers[message.owner]?.send(message);
  });
  child.on('exit', (code) => {
    if (!stopping) {
      process.stderr.write(`simulator worker ${index} exited with ${code}; restarting\n`);
      fork(index);
    }
  });
}

for (let index = 0; index < config.workers; index += 1) fork(index);
for (const signal of ['SIGTERM', 'SIGINT']) {
  process.on(signal, () => {
    stopping = true;
    for (const child of workers) child.kill();
    setTimeout(() => process.exit(0), 500).unref();
  });
}
