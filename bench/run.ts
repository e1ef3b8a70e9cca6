// `npm run bench`: every benchmark, in sequence, printing its figures.
// A single one: `npm run bench -- plan` (names: plan, path, tick, tick-pg, forecast, parse, page-data, page-data-pg,
// cli, serve; the -pg ones on the same fleet copied into a throw-away PostgreSQL server).
const BENCHES: Record<string, () => Promise<{ run: () => Promise<void> | void }>> = {
  plan: async () => ({ run: (await import('./plan-bench')).runPlanBench }),
  path: async () => ({ run: (await import('./path-bench')).runPathBench }),
  tick: async () => ({ run: (await import('./tick-bench')).runTickBench }),
  'tick-pg': async () => {
    const { runTickBench } = await import('./tick-bench');
    return { run: () => runTickBench('postgres') };
  },
  forecast: async () => ({ run: (await import('./forecast-bench')).runForecastBench }),
  parse: async () => ({ run: (await import('./parse-bench')).runParseBench }),
  'page-data': async () => ({ run: (await import('./page-data-bench')).runPageDataBench }),
  'page-data-pg': async () => {
    const { runPageDataBench } = await import('./page-data-bench');
    return { run: () => runPageDataBench('postgres') };
  },
  cli: async () => ({ run: (await import('./cli-bench')).runCliBench }),
  serve: async () => ({ run: (await import('./serve-bench')).runServeBench }),
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = wanted.length ? wanted : Object.keys(BENCHES);
  console.log(`fleetplan benchmarks — node ${process.version}, ${(await import('node:os')).cpus().length} cores\n`);
  for (const name of names) {
    const load = BENCHES[name];
    if (!load) throw new Error(`unknown benchmark '${name}' (known: ${Object.keys(BENCHES).join(', ')})`);
    console.log(`## ${name}`);
    await (await load()).run();
    console.log('');
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
