// The local runtime's process tables, as scripts/services.sh reads them: scripts/services.conf
// (each component: its entry, port and replicas) and scripts/services-compact.conf (the
// compact profile's hosts and their members).
import { readFileSync } from 'node:fs';

const SCRIPTS = new URL('..', import.meta.url).pathname;

/** The lines of a conf file that are not blank or comments, split into fields. */
function confRows(file) {
  return readFileSync(`${SCRIPTS}${file}`, 'utf8').split('\n').map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#')).map((line) => line.split(/\s+/));
}

/** Every component of services.conf as `{ name, entry, port, replicas }`. */
export function readServices() {
  return confRows('services.conf').map(([name, entry, port, replicas]) => ({ name, entry, port: Number(port), replicas: Number(replicas) }));
}

/** The compact profile's hosts as a Map of host name → the components it starts. */
export function readCompactHosts() {
  return new Map(confRows('services-compact.conf').map(([name, members]) => [name, members.split(',')]));
}
