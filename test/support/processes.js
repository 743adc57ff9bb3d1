// What a test may ask of a process it started by PID, read from /proc.
import { readFileSync } from 'node:fs';

/** Whether process `pid` runs: a process that exited but was not reaped yet (a zombie) counts as gone. */
export function processRunning(pid) {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}
