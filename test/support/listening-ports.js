// Which TCP ports processes listen on, read from /proc (Linux), and which ports the local
// runtime (`make up`, `make demo`) binds by default: a test's own switch must bind none of
// those, or a developer's running switch would break the tests.
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { readServices } from '../../scripts/lib/services-conf.js';

const LISTEN = '0A'; // the TCP state column of /proc/net/tcp for a listening socket

function socketInodes(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]);
    } catch { /* the descriptor closed while we looked */ }
  }
  return inodes;
}

/** The TCP ports the given processes listen on (IPv4 and IPv6), sorted. */
export function listeningPorts(pids) {
  const inodes = new Set(pids.flatMap((pid) => [...socketInodes(pid)]));
  const ports = new Set();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10 || fields[3] !== LISTEN || !inodes.has(fields[9])) continue;
      ports.add(Number.parseInt(fields[1].split(':')[1], 16));
    }
  }
  return [...ports].sort((a, b) => a - b);
}

/**
 * The ports the local runtime binds with its defaults: every service of scripts/services.conf
 * (up to `replicas` replicas each), the built-in oracle, MariaDB, Kafka and the demo's DFSP
 * simulators (scripts/env.sh, scripts/demo.js).
 */
export function localRuntimePorts({ replicas = 4 } = {}) {
  const replicaPorts = readServices().flatMap(({ port: base }) => Array.from({ length: replicas }, (_, index) => base + index));
  return new Set([...replicaPorts, 4003, 3307, 9192, 9193, 4101, 4102, 4103, 4104, 4105, 4106]);
}
