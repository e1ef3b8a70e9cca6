// Refreshes the update graphs from the configured update service (FLEETPLAN_UPDATE_SERVICE_*) a
// minute after start-up and then every `intervalMs`, beside the tick (a slow update service never
// delays one). The refresh itself is passed in by instrumentation.ts: the scheduler does not
// import services.
export interface GraphRefreshLoop {
  stop(): void;
}

export function startGraphRefreshLoop(opts: {
  intervalMs: number;
  refresh: () => Promise<string>;
  log?: (line: string) => void;
  firstDelayMs?: number;
}): GraphRefreshLoop {
  const log = opts.log ?? ((line: string) => console.log(line));
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const run = async () => {
    try {
      log(`fleetplan: update graphs: ${await opts.refresh()}`);
    } catch (err) {
      log(`fleetplan: update graphs could not be refreshed: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!stopped) schedule(opts.intervalMs);
  };
  const schedule = (ms: number) => {
    timer = setTimeout(() => void run(), ms);
    timer.unref();
  };
  schedule(opts.firstDelayMs ?? 60_000);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}
