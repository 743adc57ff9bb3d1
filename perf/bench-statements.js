// CPU per statement on the hot path's mysql2 pool: the client's (this process) and the
// server's (MariaDB, from /proc) microseconds per oracle read, four in flight, over loopback
// TCP and over the local server's Unix socket, with mysql2's per-statement stack capture on
// (its default) and off (createSqlPool's setting).
// Run against `make infra-up`: source scripts/env.sh && node perf/bench-statements.js [statements]
import { readFileSync } from 'node:fs';
import mysql from 'mysql2/promise';
import { loadConfig } from '../platform/config.js';

const statements = Number(process.argv[2] ?? 20_000);
const IN_FLIGHT = 4;
const RUN = new URL('../.run/mariadb/', import.meta.url).pathname;
const { db } = loadConfig(process.env);
const serverPid = readFileSync(`${RUN}mariadbd.pid`, 'utf8').trim();
const TICK_US = 10_000; // USER_HZ is 100 on Linux

function serverCpuUs() {
  const fields = readFileSync(`/proc/${serverPid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

async function measure(transport, trace) {
  const pool = mysql.createPool({ user: db.user, password: db.password, database: db.database, connectionLimit: IN_FLIGHT, trace, ...transport });
  const read = (i) => pool.query('SELECT `fsp_id` FROM `oracle_party` WHERE `party_id_type` = ? AND `party_identifier` = ? AND `party_sub_id` = ?', ['MSISDN', String(i), '']);
  await read(0);
  const client = process.cpuUsage();
  const server = serverCpuUs();
  for (let i = 0; i < statements; i += IN_FLIGHT) await Promise.all(Array.from({ length: IN_FLIGHT }, (_, k) => read(i + k)));
  const { user, system } = process.cpuUsage(client);
  const serverUs = serverCpuUs() - server;
  await pool.end();
  return { clientUs: ((user + system) / statements).toFixed(1), serverUs: (serverUs / statements).toFixed(1) };
}

const transports = { tcp: { host: db.host, port: db.port }, unix: { socketPath: `${RUN}mariadb.sock` } };
console.log(`${statements} statements, ${IN_FLIGHT} in flight; CPU µs per statement`);
for (const round of [1, 2]) {
  for (const [name, transport] of Object.entries(transports)) {
    for (const trace of [true, false]) {
      const { clientUs, serverUs } = await measure(transport, trace);
      console.log(`round ${round} ${name.padEnd(4)} trace ${String(trace).padEnd(5)} client ${clientUs} server ${serverUs}`);
    }
  }
}
