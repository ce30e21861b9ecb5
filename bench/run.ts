import { runBench } from './report.ts';

/**
 * `npm run bench [-- name...]`: runs every benchmark (or the named ones) one after another, so they do
 * not compete for this machine's two cores, and exits non-zero when any is over its budget.
 * A new benchmark is a module in bench/ plus one entry here.
 */
const benches: Record<string, () => Promise<boolean>> = {
  'cold-start': () => import('./cold-start.ts').then((m) => runBench(m.coldStart, m.printColdStart)),
  'page-callbacks': () => import('./page-callbacks.ts').then((m) => runBench(m.pageCallbacks, m.printPageCallbacks)),
  'audio-job': () => import('./audio-job.ts').then((m) => runBench(m.audioJob, m.printAudioJob)),
  catalogue: () => import('./catalogue.ts').then((m) => runBench(m.catalogueBench, m.printCatalogue)),
  ocr: () => import('./ocr.ts').then((m) => runBench(m.ocrBench, m.printOcr)),
  'ocr-prepare': () => import('./ocr-prepare.ts').then((m) => runBench(m.prepareBench, m.printPrepare)),
  search: () => import('./search.ts').then((m) => runBench(m.searchBench, m.printSearch)),
  'search-ocr': () => import('./search-ocr.ts').then((m) => runBench(m.searchOcrBench, m.printSearchOcr)),
  'write-latency': () => import('./write-latency.ts').then((m) => runBench(m.writeLatency, m.printWriteLatency)),
  hostile: () => import('./hostile.ts').then((m) => runBench(m.hostileBench, m.printHostile)),
  faults: () => import('./faults.ts').then((m) => runBench(m.faultsBench, m.printFaults)),
  announcements: () => import('./announcements.ts').then((m) => runBench(m.announcementsBench, m.printAnnouncements)),
  'big-books': () => import('./big-books.ts').then((m) => runBench(m.bigBooks, m.printBigBooks)),
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
