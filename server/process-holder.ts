// Who this process is to the other replicas on the same database: the scheduler lease's holder,
// the claimant of a webhook delivery, the replica the readiness endpoint names. Host and pid: a
// second process on the same database, on this machine or another, is another holder.
import os from 'node:os';

export function processHolder(): string {
  return `${os.hostname()}:${process.pid}`;
}
