import { runBench } from './report.ts';

/**
 * `npm run bench [-- name...]`: runs every benchmark (or the named ones) one after another, so they do
 * not compete for this machine's two cores, and exits non-zero when any is over its budget.
 * A new benchmark is a module in bench/ plus one entry here.
 */
const benches: Record<string, () => Promise<boolean>> = {
  'cold-start': async () => {
    const { coldStart, printColdStart } = await import('./cold-start.ts');
    return runBench(coldStart, printColdStart);
  },
  'page-callbacks': async () => {
    const { pageCallbacks, printPageCallbacks } = await import('./page-callbacks.ts');
    return runBench(pageCallbacks, printPageCallbacks);
  },
  'audio-job': async () => {
    const { audioJob, printAudioJob } = await import('./audio-job.ts');
    return runBench(audioJob, printAudioJob);
  },
  catalogue: async () => {
    const { catalogueBench, printCatalogue } = await import('./catalogue.ts');
    return runBench(catalogueBench, printCatalogue);
  },
  ocr: async () => {
    const { ocrBench, printOcr } = await import('./ocr.ts');
    return runBench(ocrBench, printOcr);
  },
  search: async () => {
    const { searchBench, printSearch } = await import('./search.ts');
    return runBench(searchBench, printSearch);
  },
  'write-latency': async () => {
    const { writeLatency, printWriteLatency } = await import('./write-latency.ts');
    return runBench(writeLatency, printWriteLatency);
  },
  hostile: async () => {
    const { hostileBench, printHostile } = await import('./hostile.ts');
    return runBench(hostileBench, printHostile);
  },
  faults: async () => {
    const { faultsBench, printFaults } = await import('./faults.ts');
    return runBench(faultsBench, printFaults);
  },
  'big-books': async () => {
    const { bigBooks, printBigBooks } = await import('./big-books.ts');
    return runBench(bigBooks, printBigBooks);
  },
};

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !(name in benches));
if (unknown.length > 0) throw new Error(`unknown bench ${unknown.join(', ')}; known: ${Object.keys(benches).join(', ')}`);

const failed: string[] = [];
for (const [name, run] of Object.entries(benches)) {
  if (wanted.length > 0 && !wanted.includes(name)) continue;
  console.log(`\n== ${name}`);
  if (!(await run())) failed.push(name);
}
if (failed.length > 0) {
  console.error(`\nover budget: ${failed.join(', ')}`);
  process.exitCode = 1;
}
