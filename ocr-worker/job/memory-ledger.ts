import type { JobEntry, JobLedger, PageEntry } from './ledger.ts';

/** A JobLedger in memory, with the DynamoDB adapter's semantics: for tests and single-process runs. */
export function memoryLedger(): JobLedger {
  const jobs = new Map<string, JobEntry>();
  const pages = new Map<string, Map<number, PageEntry>>();
  const copy = (job: JobEntry | undefined) => (job ? { ...job, claim: job.claim && { ...job.claim } } : undefined);
  return {
    async start(jobId, plan, at) {
      if (!jobs.has(jobId)) jobs.set(jobId, { jobId, ...plan, startedAt: at, pagesDone: 0, finished: false });
      return copy(jobs.get(jobId))!;
    },
    async job(jobId) {
      return copy(jobs.get(jobId));
    },
    async donePages(jobId, pageNumbers) {
      const done = pages.get(jobId);
      return new Set(pageNumbers.filter((n) => done?.has(n)));
    },
    async pages(jobId) {
      return [...(pages.get(jobId)?.values() ?? [])].sort((a, b) => a.pageNumber - b.pageNumber).map((p) => ({ ...p }));
    },
    async markPageDone(jobId, page) {
      const job = jobs.get(jobId);
      if (!job) throw new Error(`job ${jobId} is not in the ledger`);
      const done = pages.get(jobId) ?? new Map<number, PageEntry>();
      pages.set(jobId, done);
      if (done.has(page.pageNumber)) return { counted: false, pagesDone: job.pagesDone, pagesOverLimit: job.pagesOverLimit ?? 0 };
      done.set(page.pageNumber, { ...page });
      job.pagesDone += 1;
      if (page.overLimit) job.pagesOverLimit = (job.pagesOverLimit ?? 0) + 1;
      return { counted: true, pagesDone: job.pagesDone, pagesOverLimit: job.pagesOverLimit ?? 0 };
    },
    async fail(jobId, failure) {
      const job = jobs.get(jobId);
      if (job && !job.finished && job.failure === undefined) job.failure = failure;
    },
    async claimFinish(jobId, owner, now, leaseMs) {
      const job = jobs.get(jobId);
      if (!job || job.finished) return false;
      if (job.claim && job.claim.owner !== owner && job.claim.claimedAt > now - leaseMs) return false;
      job.claim = { owner, claimedAt: now };
      return true;
    },
    async markFinished(jobId) {
      const job = jobs.get(jobId);
      if (job) job.finished = true;
    },
  };
}
