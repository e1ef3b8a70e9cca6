// Waiting in a test for something the machine must do (a tick, a worker, another connection):
// poll for it with a generous deadline, never sleep a fixed time, which a loaded machine outlasts.

/** `read` until it gives a value (not undefined or false), polled every 20 ms; fails after `timeoutMs`. */
export async function waitFor<T>(
  read: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs: number,
  what = 'the condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
