import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What every benchmark's report says at least: whether it kept within its budget. */
export interface BenchReport {
  ok: boolean;
}

/** Runs a benchmark and prints its report: true when it kept within its budget. */
export async function runBench<R extends BenchReport>(run: () => Promise<R>, print: (report: R) => void): Promise<boolean> {
  const report = await run();
  print(report);
  return report.ok;
}

/** `tsx bench/<name>.ts`: runs the benchmark when its module is the command, and fails the process when it is over budget. */
export async function runIfMain<R extends BenchReport>(moduleUrl: string, run: () => Promise<R>, print: (report: R) => void): Promise<void> {
  if (!process.argv[1] || path.resolve(process.argv[1]) !== fileURLToPath(moduleUrl)) return;
  if (!(await runBench(run, print))) process.exitCode = 1;
}
