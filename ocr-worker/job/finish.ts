import type { OcrJobMessage } from '../contract.ts';
import type { FinalResult, ServiceApi } from '../client/service-api.ts';
import type { JobLedger } from './ledger.ts';

/** How the pages' texts join into the book's text: a blank line between pages. */
export const pageSeparator = '\n\n';

/**
 * Another worker holds the claim to post this job's final result. Thrown so that the task is
 * delivered again later: by then the holder has finished, or its lease has run out and this worker
 * takes over (a crashed holder must not leave the job unfinished).
 */
export class FinishPending extends Error {
  override name = 'FinishPending';
  constructor(jobId: string) {
    super(`Another worker is posting the final result of job ${jobId}; try again once its claim expires`);
  }
}

interface FinishDeps {
  ledger: JobLedger;
  api: ServiceApi;
  owner: string;
  now?: () => number;
  finishLeaseMs?: number;
}

/**
 * How long a claim to post the final result holds before another worker may take it over: longer
 * than the posting takes with its retries (two calls, four attempts of at most 30 s each, pauses).
 */
export const finishLeaseMs = 10 * 60_000;

/**
 * Posts the job's final result once, however many workers get here: `completed` with the pages'
 * text joined in page order, or `failed` with why its file cannot be read. A `completed` result
 * charges the user (docs/SPEC.md 4.1), so only the holder of the ledger's claim posts, and it first asks
 * the service whether a previous holder posted before it crashed.
 */
/** What a finish that this call made looked like: for the worker's log of pages per second. */
export interface FinishedJob {
  status: 'completed' | 'failed';
  pageCount: number;
  /** From the job's plan to its final result. */
  seconds: number;
}

export async function finishJob(deps: FinishDeps, message: OcrJobMessage): Promise<FinishedJob | undefined> {
  const now = deps.now ?? Date.now;
  const { ledger, api } = deps;
  const claimed = await ledger.claimFinish(message.jobId, deps.owner, now(), deps.finishLeaseMs ?? finishLeaseMs);
  const job = await ledger.job(message.jobId);
  if (!job || job.finished) return undefined;
  if (!claimed) throw new FinishPending(message.jobId);

  const status: FinalResult['status'] = job.failure === undefined ? 'completed' : 'failed';
  if ((await api.jobStatus(message.jobId)) !== status) {
    const { jobId, fileId, userId, language } = message;
    const base = { jobId, fileId, userId, language, processingTime: Math.max(0, now() - job.startedAt) };
    if (job.failure !== undefined) {
      await api.postResult({ ...base, status, error: job.failure });
    } else {
      const pages = await ledger.pages(jobId);
      await api.postResult({ ...base, status, pageCount: job.pageCount, extractedText: pages.map((p) => p.text).join(pageSeparator) });
    }
  }
  await ledger.markFinished(message.jobId);
  return { status, pageCount: job.pageCount, seconds: Math.max(0, now() - job.startedAt) / 1000 };
}
