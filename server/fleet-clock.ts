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

export function getFleetClock(db: Db): () => Date {
  return () => {
    const state = readSetting<SimulatorClockState>(db, SIMULATOR_CLOCK_KEY);
    return state ? simulatedNow(state, new Date()) : new Date();
  };
}
