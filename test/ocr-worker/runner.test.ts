import { describe, expect, it } from 'vitest';
import { maxPageTextLength } from '../../lib/ocr/pages/page.ts';
import { PageError, PageOverLimit, UnreadableFile } from '../../ocr-worker/contract.ts';
import { maxPagesOverLimit, pagesOverLimitMessage } from '../../ocr-worker/limits.ts';
import { FinishPending, finishLeaseMs, pageSeparator } from '../../ocr-worker/job/finish.ts';
import { memoryLedger } from '../../ocr-worker/job/memory-ledger.ts';
import { maxPagesPerJob, noPagesMessage, planJob, runPages, tooManyPagesMessage, type RunnerDeps } from '../../ocr-worker/job/runner.ts';
import type { OcrJobMessage, SourcePage } from '../../ocr-worker/contract.ts';
import { memoryBytes } from '../../ocr-worker/fixtures/bytes.ts';
import { scannedPdf, textPng } from '../../ocr-worker/fixtures/pdf.ts';
import { openPdf } from '../../ocr-worker/pdf/page-source.ts';
import { born, fakeApi, fakeWorker, message, scanned, type Book } from './fakes.ts';

/** The job runner over in-memory ports: what the service is told, and how often. */

const fivePages: Book = [scanned(1), scanned(2), born(3, 'نص الصفحة الثالثة'), scanned(4), scanned(5)];
const fiveTexts = ['text of page 1', 'text of page 2', 'نص الصفحة الثالثة', 'text of page 4', 'text of page 5'];

/** A job as a queue runs it: the job message planned, then each task of pages (here in reverse order). */
async function runJob(deps: RunnerDeps, job: OcrJobMessage) {
  const plan = await planJob(deps, job);
  for (const task of [...plan.tasks].reverse()) await runPages(deps, job, task);
  return plan;
}

describe('a job', () => {
  it('posts each page once, with its image key and counts, then one completed result with the text in page order', async () => {
    const service = fakeApi();
    const { deps, recognized, images } = fakeWorker(fivePages, { api: service.api }, { pagesPerTask: 2 });
    const job = message();
    const plan = await runJob(deps, job);

    expect(plan).toEqual({ pageCount: 5, tasks: [[1, 2], [3, 4], [5]] });
    expect(service.pages.map((p) => p.pageNumber).sort()).toEqual([1, 2, 3, 4, 5]);
    for (const page of service.pages) {
      expect(page).toMatchObject({ jobId: job.jobId, fileId: job.fileId, userId: job.userId, pageCount: 5 });
      expect(page.text).toBe(fiveTexts[page.pageNumber - 1]);
      expect(page.storageKey).toBe(`ocr-pages/${job.jobId}/${page.pageNumber}.png`);
      expect(page.status).toBeUndefined();
    }
    expect(service.pages.map((p) => p.pagesProcessed)).toEqual([1, 2, 3, 4, 5]);
    expect([...images.keys()]).toHaveLength(5);
    // Page 3 has a trustworthy text layer: no OCR; the others with the Arabic model.
    expect(recognized.map((r) => r.page).sort()).toEqual(['scan of page 1', 'scan of page 2', 'scan of page 4', 'scan of page 5']);
    expect(new Set(recognized.map((r) => r.model))).toEqual(new Set(['ara']));

    expect(service.results).toHaveLength(1);
    expect(service.results[0]).toMatchObject({
      jobId: job.jobId,
      fileId: job.fileId,
      userId: job.userId,
      status: 'completed',
      pageCount: 5,
      language: 'ar',
      extractedText: fiveTexts.join(pageSeparator),
    });
    expect(service.results[0]!.processingTime).toBeGreaterThanOrEqual(0);
  });

  it('posts each page’s confidence and uncertain words; a text layer’s page has none, and a page cut to the cap keeps only the words it holds whole', async () => {
    const service = fakeApi();
    const long = `${'و'.repeat(maxPageTextLength - 2)} كلمة`;
    const { deps } = fakeWorker([scanned(1), born(2, 'نص'), scanned(3)], { api: service.api }, {
      read: async (_engine, image) =>
        image.toString() === 'scan of page 1'
          ? { text: 'قال أبو عثمان', confidence: 64.5, uncertain: [[4, 7]] }
          : { text: long, confidence: 50, uncertain: [[0, maxPageTextLength - 2], [maxPageTextLength - 1, long.length]] },
    });
    await runJob(deps, message());
    const posted = new Map(service.pages.map((p) => [p.pageNumber, p]));
    expect(posted.get(1)).toMatchObject({ text: 'قال أبو عثمان', confidence: 64.5, uncertain: [[4, 7]] });
    expect(posted.get(2)).toMatchObject({ text: 'نص', confidence: null, uncertain: [] });
    expect(posted.get(3)!.text).toHaveLength(maxPageTextLength);
    expect(posted.get(3)!.uncertain).toEqual([[0, maxPageTextLength - 2]]);
  });

  it('posts nothing more when its message or a task is delivered again', async () => {
    const service = fakeApi();
    const { deps, recognized } = fakeWorker(fivePages, { api: service.api }, { pagesPerTask: 2 });
    const job = message();
    await runJob(deps, job);
    const before = { pages: service.pages.length, results: service.results.length, ocr: recognized.length };

    expect(await planJob(deps, job)).toEqual({ pageCount: 5, tasks: [] });
    await runPages(deps, job, [1, 2]);
    await runPages(deps, job, [5]);
    expect({ pages: service.pages.length, results: service.results.length, ocr: recognized.length }).toEqual(before);
  });

  it('posts completed once when two workers race on one job', async () => {
    const service = fakeApi();
    const ledger = memoryLedger();
    const job = message();
    const workers = [0, 1].map(() => fakeWorker(fivePages, { api: service.api, ledger }, { pagesPerTask: 1 }));
    // Both take the job message and every task, at once.
    const runs = await Promise.allSettled(workers.map((w) => runJob(w.deps, job)));
    expect(service.results.filter((r) => r.status === 'completed')).toHaveLength(1);
    // A loser that found the finish claimed is told to try again later, and then does nothing.
    for (const run of runs) if (run.status === 'rejected') expect(run.reason).toBeInstanceOf(FinishPending);
    for (const w of workers) await runJob(w.deps, job);
    expect(service.results).toHaveLength(1);
    // Every page counted once in the ledger, whatever was posted twice in the race.
    expect((await ledger.job(job.jobId))!.pagesDone).toBe(5);
    expect(new Set(service.pages.map((p) => p.pageNumber))).toEqual(new Set([1, 2, 3, 4, 5]));
  });

  it('resumes a job whose worker died after page 3 without reading pages 1 to 3 again', async () => {
    const service = fakeApi();
    const ledger = memoryLedger();
    const job = message();
    const first = fakeWorker(fivePages, { api: service.api, ledger }, { pagesPerTask: 5 });
    service.failWhen((call, body) => call === 'page' && (body as { pageNumber: number }).pageNumber === 4);
    const plan = await planJob(first.deps, job);
    await expect(runPages(first.deps, job, plan.tasks[0]!)).rejects.toThrow('connection reset');
    expect(service.pages.map((p) => p.pageNumber)).toEqual([1, 2, 3]);
    expect(service.results).toHaveLength(0);

    service.failWhen(undefined);
    const second = fakeWorker(fivePages, { api: service.api, ledger });
    // The queue delivers the job message and its task again.
    expect((await planJob(second.deps, job)).tasks).toEqual([[4, 5]]);
    await runPages(second.deps, job, plan.tasks[0]!);
    expect(second.recognized.map((r) => r.page)).toEqual(['scan of page 4', 'scan of page 5']);
    expect(service.pages.map((p) => p.pageNumber)).toEqual([1, 2, 3, 4, 5]);
    expect(service.results).toHaveLength(1);
    expect(service.results[0]!.extractedText).toBe(fiveTexts.join(pageSeparator));
  });

  it('ends failed once, with what the reader said, when the file cannot be read', async () => {
    const service = fakeApi();
    const why = 'The PDF is encrypted: remove its password and upload it again';
    const { deps } = fakeWorker(new UnreadableFile(why), { api: service.api });
    const job = message();
    expect(await planJob(deps, job)).toEqual({ pageCount: 0, tasks: [] });
    expect(await planJob(deps, job)).toEqual({ pageCount: 0, tasks: [] });
    expect(service.pages).toEqual([]);
    expect(service.results).toHaveLength(1);
    expect(service.results[0]).toMatchObject({ jobId: job.jobId, status: 'failed', error: why, language: 'ar' });
    expect(service.results[0]!.extractedText).toBeUndefined();
  });

  it('ends failed, reading nothing, when the file has more pages than a job may read', async () => {
    const service = fakeApi();
    const huge: Book = Array.from({ length: maxPagesPerJob + 1 }, (_, i) => scanned(i + 1));
    const { deps, recognized } = fakeWorker(huge, { api: service.api });
    expect(await planJob(deps, message())).toEqual({ pageCount: 0, tasks: [] });
    expect(recognized).toEqual([]);
    expect(service.pages).toEqual([]);
    expect(service.results).toMatchObject([{ status: 'failed', error: tooManyPagesMessage(maxPagesPerJob + 1) }]);
    expect(service.results[0]!.error).toBe('The file has 2,001 pages; at most 2,000 pages can be read in one job. Split it and upload the parts.');
  });

  it('ends failed when the file has no pages', async () => {
    const service = fakeApi();
    const { deps } = fakeWorker([], { api: service.api });
    await planJob(deps, message());
    expect(service.results).toMatchObject([{ status: 'failed', error: noPagesMessage }]);
  });

  it('posts a page it cannot read as a failed page, and the job still completes', async () => {
    const service = fakeApi();
    const why = 'Page 2 is larger than 50 million pixels';
    const book: Book = [scanned(1), new PageError(why), scanned(3)];
    const { deps } = fakeWorker(book, { api: service.api }, { modelFor: () => 'eng' });
    const job = message({ language: 'en' });
    await runJob(deps, job);
    const failed = service.pages.find((p) => p.pageNumber === 2);
    expect(failed).toMatchObject({ status: 'failed', error: why, text: '', storageKey: null });
    expect(service.pages.filter((p) => p.status === 'failed')).toHaveLength(1);
    expect(service.results).toMatchObject([{ status: 'completed', pageCount: 3, language: 'en' }]);
    expect(service.results[0]!.extractedText).toBe(['text of page 1', '', 'text of page 3'].join(pageSeparator));
  });

  it('fails a job whose pages keep running past the reader\'s limits after three of them, reading no more of it', async () => {
    const service = fakeApi();
    const ledger = memoryLedger();
    // 2,000 pages that all share one bomb stream: each would cost its page's whole limit.
    const bomb = (n: number) => new PageOverLimit(`Page ${n} took longer than 25 s to read`);
    const book: Book = [scanned(1), ...Array.from({ length: 1999 }, (_, i) => bomb(i + 2))];
    let opened = 0;
    const workers = [0, 1].map(() => fakeWorker(book, { api: service.api, ledger }, { pagesPerTask: 8 }));
    for (const w of workers) {
      const open = w.deps.openSource;
      w.deps.openSource = (bytes) => (opened++, open(bytes));
    }
    const job = message();
    const plan = await planJob(workers[0]!.deps, job);
    expect(plan.tasks).toHaveLength(250);
    // Two workers take the tasks in turn, as the pool does.
    for (const [i, task] of plan.tasks.entries()) await runPages(workers[i % 2]!.deps, job, task);

    expect(maxPagesOverLimit).toBe(3);
    expect(service.pages.filter((p) => p.status === 'failed')).toHaveLength(maxPagesOverLimit);
    expect(service.results).toEqual([expect.objectContaining({ status: 'failed', error: pagesOverLimitMessage() })]);
    expect(pagesOverLimitMessage()).toBe(
      'The file could not be read: 3 of its pages took longer or needed more memory than a page may. It may be damaged, or made to exhaust readers.',
    );
    // Only the task that met the limit opened the file after the plan; the other 249 read nothing.
    expect(opened).toBe(2);
  });

  it('fails a task when storage stops answering mid-job (its queue delivers it again), and finishes the job once storage is back, with no restart', async () => {
    const service = fakeApi();
    const pdf = await scannedPdf([textPng({ lines: ['one'], language: 'en' }), textPng({ lines: ['two'], language: 'en' })]);
    const bytes = memoryBytes(pdf);
    let storageDown = false;
    // The S3 stand-in killed after the first page is reported: every range read from then on is refused.
    service.failWhen((call, body) => {
      if (call === 'page' && (body as { pageNumber: number }).pageNumber === 1) storageDown = true;
      return false;
    });
    const files = {
      open: async () => ({ size: bytes.size, read: (start: number, end: number) => (storageDown ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1')) : bytes.read(start, end)) }),
      putPageImage: async (_bucket: string, jobId: string, pageNumber: number) => `ocr-pages/${jobId}/${pageNumber}.png`,
    };
    const { deps } = fakeWorker([], { api: service.api }, { files, openSource: (b) => openPdf(b, { rangeChunkSize: 1024 }), modelFor: () => 'eng' });
    const job = message({ language: 'en' });
    const plan = await planJob(deps, job);
    expect(plan.tasks).toEqual([[1, 2]]);
    await expect(runPages(deps, job, plan.tasks[0]!)).rejects.toThrow('ECONNREFUSED');
    expect(service.pages.map((p) => p.pageNumber)).toEqual([1]);
    expect(service.results).toEqual([]);
    // Storage back; the queue delivers the task again: page 1 is not read again, page 2 is, and the job completes once.
    storageDown = false;
    service.failWhen(undefined);
    await runPages(deps, job, plan.tasks[0]!);
    expect(service.pages.map((p) => p.pageNumber)).toEqual([1, 2]);
    expect(service.results).toMatchObject([{ status: 'completed', pageCount: 2 }]);
  });

  it('counts an ordinary page error as a page error, never toward failing the job', async () => {
    const service = fakeApi();
    const book: Book = Array.from({ length: 10 }, (_, i) => new PageError(`Page ${i + 1} could not be read: bad operator`));
    const { deps } = fakeWorker(book, { api: service.api });
    await runJob(deps, message());
    expect(service.pages.filter((p) => p.status === 'failed')).toHaveLength(10);
    expect(service.results).toMatchObject([{ status: 'completed', pageCount: 10 }]);
  });

  it("reads scanned pages through the injected reading (the engine's second script and clean-up), with the job's model", async () => {
    const service = fakeApi();
    const models: string[] = [];
    const { deps } = fakeWorker([scanned(1), born(2, 'layer')], { api: service.api }, {
      modelFor: (language) => (language === 'en' ? 'eng' : 'ara'),
      read: async (engine, png, model, options) => {
        models.push(model);
        const first = await engine.recognize(png, model, options);
        return { ...first, text: `${first.text}, cleaned` };
      },
    });
    await runJob(deps, message({ language: 'en' }));
    expect(models).toEqual(['eng']);
    expect(service.results[0]!.extractedText).toBe(['text of page 1, cleaned', 'layer'].join(pageSeparator));
  });

  it('hands the engine the page image it reads (OcrEngine.reads): the PNG to one, the grey image to the other', async () => {
    const page: SourcePage = { png: Buffer.from('png of page 1'), grey: Buffer.from('grey of page 1'), width: 10, height: 10 };
    for (const reads of ['png', 'grey'] as const) {
      const service = fakeApi();
      const seen: string[] = [];
      const { deps } = fakeWorker([page], { api: service.api });
      deps.engine = {
        reads,
        recognize: async (image) => (seen.push(image.toString()), { text: 'read', confidence: 90 }),
        close: async () => {},
      };
      await runJob(deps, message());
      expect(seen).toEqual([`${reads} of page 1`]);
    }
  });

  /**
   * A first worker runs the job and dies at `call` of its finish (the connection resets), then the
   * service answers again: the job, its service and ledger, a second worker over them, and the clock.
   */
  async function finisherDiedAt(call: 'result' | 'status') {
    const service = fakeApi();
    const ledger = memoryLedger();
    const job = message();
    const clock = { ms: 1_000_000 };
    const now = () => clock.ms;
    const first = fakeWorker(fivePages, { api: service.api, ledger }, { now });
    service.failWhen((made) => made === call);
    await expect(runJob(first.deps, job)).rejects.toThrow('connection reset');
    const resultsWhenDied = service.results.length;
    service.failWhen(undefined);
    return { service, ledger, job, clock, resultsWhenDied, secondWorker: () => fakeWorker(fivePages, { api: service.api, ledger }, { now }) };
  }

  it('does not post completed again when the finisher died after the service stored it', async () => {
    const { service, ledger, job, clock, resultsWhenDied, secondWorker } = await finisherDiedAt('result');
    expect(resultsWhenDied).toBe(1);
    const second = secondWorker();
    // Within the first finisher's lease, the second is told to come back later.
    await expect(runPages(second.deps, job, [5])).rejects.toBeInstanceOf(FinishPending);
    clock.ms += finishLeaseMs + 1;
    await runPages(second.deps, job, [5]);
    expect(service.results).toHaveLength(1);
    expect((await ledger.job(job.jobId))!.finished).toBe(true);
    expect(second.recognized).toEqual([]);
  });

  it('takes over a finish whose claimer died before posting, once its lease has run out', async () => {
    const { service, job, clock, resultsWhenDied, secondWorker } = await finisherDiedAt('status');
    expect(resultsWhenDied).toBe(0);

    clock.ms += finishLeaseMs + 1;
    const second = secondWorker();
    expect(await planJob(second.deps, job)).toEqual({ pageCount: 5, tasks: [] });
    expect(service.results).toMatchObject([{ status: 'completed', extractedText: fiveTexts.join(pageSeparator) }]);
  });
});
