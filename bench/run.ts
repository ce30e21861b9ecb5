/**
 * `npm run bench [-- name...]`: runs every benchmark (or the named ones) one after another, so they do
 * not compete for this machine's two cores, and exits non-zero when any is over its budget.
 * A new benchmark is a module in bench/ plus one entry here.
 */
const benches: Record<string, () => Promise<boolean>> = {
  'cold-start': async () => {
    const { coldStart, printColdStart } = await import('./cold-start.ts');
    const report = await coldStart();
    printColdStart(report);
    return report.ok;
  },
  'page-callbacks': async () => {
    const { pageCallbacks, printPageCallbacks } = await import('./page-callbacks.ts');
    const report = await pageCallbacks();
    printPageCallbacks(report);
    return report.ok;
  },
  'audio-job': async () => {
    const { audioJob, printAudioJob } = await import('./audio-job.ts');
    const report = await audioJob();
    printAudioJob(report);
    return report.ok;
  },
  catalogue: async () => {
    const { catalogueBench, printCatalogue } = await import('./catalogue.ts');
    const report = await catalogueBench();
    printCatalogue(report);
    return report.ok;
  },
  ocr: async () => {
    const { ocrBench, printOcr } = await import('./ocr.ts');
    const report = await ocrBench();
    printOcr(report);
    return report.ok;
  },
  search: async () => {
    const { searchBench, printSearch } = await import('./search.ts');
    const report = await searchBench();
    printSearch(report);
    return report.ok;
  },
  'write-latency': async () => {
    const { writeLatency, printWriteLatency } = await import('./write-latency.ts');
    const report = await writeLatency();
    printWriteLatency(report);
    return report.ok;
  },
  hostile: async () => {
    const { hostileBench, printHostile } = await import('./hostile.ts');
    const report = await hostileBench();
    printHostile(report);
    return report.ok;
  },
  faults: async () => {
    const { faultsBench, printFaults } = await import('./faults.ts');
    const report = await faultsBench();
    printFaults(report);
    return report.ok;
  },
  'big-books': async () => {
    const { bigBooks, printBigBooks } = await import('./big-books.ts');
    const report = await bigBooks();
    printBigBooks(report);
    return report.ok;
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
