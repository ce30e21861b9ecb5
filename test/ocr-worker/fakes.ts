import { randomUUID } from 'node:crypto';
import { PageError, type OcrJobMessage, type OcrModel, type SourcePage } from '../../ocr-worker/contract.ts';
import type { FinalResult, JobStatus, PageResult, ServiceApi } from '../../ocr-worker/client/service-api.ts';
import { pageImageKey } from '../../ocr-worker/job/files.ts';
import type { JobLedger } from '../../ocr-worker/job/ledger.ts';
import { memoryLedger } from '../../ocr-worker/job/memory-ledger.ts';
import type { RunnerDeps } from '../../ocr-worker/job/runner.ts';

/** In-memory stand-ins for the job runner's ports: a book of pages, the bucket, the engine, the service. */

export const message = (overrides: Partial<OcrJobMessage> = {}): OcrJobMessage => ({
  jobId: randomUUID(),
  fileId: 'f'.repeat(24),
  bookTextId: 'b'.repeat(24),
  userId: 'u'.repeat(24),
  storage: { bucket: 'uploads', key: 'ocr/kitab.pdf' },
  fileName: 'kitab.pdf',
  fileType: 'application/pdf',
  fileSize: 1234,
  language: 'ar',
  customPrompt: null,
  metadata: {},
  credential: 'mkjob1.test.credential',
  ...overrides,
});

/** A page as the readers give it: its images name the page, so the fake engine reads it back. */
export const scanned = (n: number): SourcePage => ({ png: Buffer.from(`scan of page ${n}`), grey: Buffer.from(`scan of page ${n}`), width: 10, height: 10 });
export const born = (n: number, text: string): SourcePage => ({ ...scanned(n), textLayer: text });

/** The book: page n is a page, or a PageError to throw for it, or the whole file is unreadable. */
export type Book = Array<SourcePage | PageError> | Error;

/** The service as the worker sees it: records every call; `failing` makes chosen calls throw once. */
export function fakeApi() {
  const pages: PageResult[] = [];
  const results: FinalResult[] = [];
  const statusCalls: string[] = [];
  let failing: ((call: string, body?: PageResult | FinalResult) => boolean) | undefined;
  const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
  const api: ServiceApi = {
    async postPage(result) {
      await tick();
      if (failing?.('page', result)) throw new Error('connection reset');
      pages.push(result);
    },
    async postResult(result) {
      await tick();
      results.push(result);
      // After the service stored it: the answer is lost on the way back.
      if (failing?.('result', result)) throw new Error('connection reset');
      return { usageInfo: null };
    },
    async jobStatus(jobId) {
      await tick();
      statusCalls.push(jobId);
      if (failing?.('status')) throw new Error('connection reset');
      const last = results.filter((r) => r.jobId === jobId).at(-1);
      return (last?.status as JobStatus | undefined) ?? (pages.some((p) => p.jobId === jobId) ? 'processing' : 'pending');
    },
  };
  return {
    api,
    pages,
    results,
    statusCalls,
    failWhen(rule: typeof failing) {
      failing = rule;
    },
  };
}

/** A worker over the fakes; workers of one test share the ledger, the bucket and the service. */
export function fakeWorker(
  book: Book,
  shared: { ledger?: JobLedger; api: ServiceApi; images?: Map<string, Buffer> },
  options: Partial<RunnerDeps> = {},
) {
  const recognized: Array<{ page: string; model: OcrModel }> = [];
  const images = shared.images ?? new Map<string, Buffer>();
  const deps: RunnerDeps = {
    ledger: shared.ledger ?? memoryLedger(),
    api: shared.api,
    owner: randomUUID(),
    files: {
      async open() {
        return { size: 1234, read: async () => new Uint8Array() };
      },
      async putPageImage(bucket, jobId, pageNumber, png) {
        const key = pageImageKey(jobId, pageNumber);
        images.set(`${bucket}/${key}`, png);
        return key;
      },
    },
    engine: {
      reads: 'grey',
      async recognize(image, model) {
        recognized.push({ page: image.toString(), model });
        return { text: `text of ${image.toString().replace('scan of ', '')}`, confidence: 90 };
      },
      async close() {},
    },
    async openSource() {
      if (book instanceof Error) throw book;
      return {
        format: 'pdf',
        pageCount: book.length,
        async page(n) {
          const page = book[n - 1];
          if (!page) throw new Error(`no page ${n}`);
          if (page instanceof PageError) throw page;
          return page;
        },
        async close() {},
      };
    },
    modelFor: (language) => (language === 'en' ? 'eng' : 'ara'),
    ...options,
  };
  return { deps, recognized, images };
}
