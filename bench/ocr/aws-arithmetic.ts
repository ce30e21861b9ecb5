import { pagesPerTask } from '../../ocr-worker/job/runner.ts';

/**
 * How long a scan of `pages` pages takes on AWS, from the measured time per page and engine start,
 * and the fan-out: the job message is planned once (file opened, pages counted, one task message per
 * `pagesPerTask` pages), each task is one Lambda invocation reading its pages one after another, at
 * most `concurrency` at a time. The assumptions are explicit (env to change them):
 * - OCR_BENCH_CONCURRENCY (50): the pages function's concurrency (the infra sets no other yet);
 * - OCR_BENCH_GRAVITON (1.3): seconds on one Graviton (arm64) vCPU per second on one core here;
 *   WebAssembly SIMD on Graviton2 is assumed 30% slower than this x86 core (not measured here);
 * - a Lambda of at least 1,769 MB (one full vCPU), so the measured single-core time applies;
 * - Lambda runtime start and module load 1 s, a queue hop 0.5 s, the plan 1 s, page image put and
 *   callback 0.2 s a page, the final callback 0.5 s (network latencies in one region, not measured here).
 */
export interface AwsAssumptions {
  concurrency: number;
  graviton: number;
  lambdaStartS: number;
  queueHopS: number;
  planS: number;
  perPageIoS: number;
  finishS: number;
}

export const awsAssumptions = (): AwsAssumptions => ({
  concurrency: Number(process.env.OCR_BENCH_CONCURRENCY ?? 50),
  graviton: Number(process.env.OCR_BENCH_GRAVITON ?? 1.3),
  lambdaStartS: 1,
  queueHopS: 0.5,
  planS: 1,
  perPageIoS: 0.2,
  finishS: 0.5,
});

export interface AwsEstimate {
  pages: number;
  pagesPerTask: number;
  tasks: number;
  waves: number;
  /** One task: cold start, engine init, its pages. */
  taskS: number;
  totalS: number;
  assumptions: AwsAssumptions;
  secondsPerPageHere: number;
  engineInitHereS: number;
  lines: string[];
}

export function awsEstimate(pages: number, secondsPerPageHere: number, engineInitHereS: number, a: AwsAssumptions = awsAssumptions()): AwsEstimate {
  const tasks = Math.ceil(pages / pagesPerTask);
  const waves = Math.ceil(tasks / a.concurrency);
  const pageS = secondsPerPageHere * a.graviton + a.perPageIoS;
  const initS = engineInitHereS * a.graviton;
  const taskS = a.lambdaStartS + initS + pagesPerTask * pageS;
  const totalS = a.queueHopS + a.lambdaStartS + a.planS + a.queueHopS + waves * taskS + a.finishS;
  const f = (s: number) => `${s.toFixed(1)} s`;
  const lines = [
    `${pages} pages → ${tasks} tasks of ${pagesPerTask} pages (pagesPerTask) → ${waves} wave(s) at concurrency ${a.concurrency}`,
    `one page: ${f(secondsPerPageHere)} here × ${a.graviton} (Graviton, assumed) + ${f(a.perPageIoS)} image put and callback = ${f(pageS)}`,
    `one task: ${f(a.lambdaStartS)} Lambda start + ${f(initS)} engine init (${f(engineInitHereS)} here × ${a.graviton}) + ${pagesPerTask} × ${f(pageS)} = ${f(taskS)}`,
    `job: ${f(a.queueHopS)} queue + ${f(a.lambdaStartS)} start + ${f(a.planS)} plan + ${f(a.queueHopS)} queue + ${waves} × ${f(taskS)} + ${f(a.finishS)} final callback = ${f(totalS)} (${(totalS / 60).toFixed(1)} min)`,
  ];
  return { pages, pagesPerTask, tasks, waves, taskS, totalS, assumptions: a, secondsPerPageHere, engineInitHereS, lines };
}
