// The load average printed beside a bench's figures: on a shared machine they move with it.
import os from 'node:os';

export function loadAverage(): string {
  return os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
}
