// The fleet's clock: real time, unless the simulator provider runs its own (faster) clock.
// The simulator stores its clock in the settings table under 'simulator.clock'.
import type { Db } from '@/db/open-database';
import { readSetting } from '@/server/repositories/scheduler-repository';

export const SIMULATOR_CLOCK_KEY = 'simulator.clock';

export interface SimulatorClockState {
  /** simulated time at `realAnchor` */
  simAnchor: string;
  realAnchor: string;
  /** simulated seconds per real second; 0 = paused */
  speed: number;
}

export function simulatedNow(state: SimulatorClockState, realNow: Date): Date {
  const elapsed = realNow.getTime() - Date.parse(state.realAnchor);
  return new Date(Date.parse(state.simAnchor) + elapsed * state.speed);
}

/**
 * The fleet's clock as it is set now (read once: a request or a run keeps one clock throughout;
 * the simulator's speed changing meanwhile is seen by the next one).
 */
export async function getFleetClock(db: Db): Promise<() => Date> {
  const state = await readSetting<SimulatorClockState>(db, SIMULATOR_CLOCK_KEY);
  return () => (state ? simulatedNow(state, new Date()) : new Date());
}
