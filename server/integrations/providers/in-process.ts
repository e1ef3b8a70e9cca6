/**
 * A step of an in-process provider (the simulator and the test fake work synchronously) as the
 * async FleetProvider interface returns it: its result, or what it throws, as a settled promise.
 * Returning the value directly would make a failure throw at the call instead of rejecting, which
 * callers that collect promises (Promise.allSettled, .catch) would not see as the provider's.
 */
export function inProcess<T>(step: () => T | Promise<T>): Promise<T> {
  return new Promise((resolve) => resolve(step()));
}
