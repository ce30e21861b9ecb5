import type { ChangeMessageVisibilityCommand } from '@aws-sdk/client-sqs';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { PageError, UnreadableFile } from '../../ocr-worker/contract.ts';
import { memoryLedger } from '../../ocr-worker/job/memory-ledger.ts';
import { pagesPerTask } from '../../ocr-worker/job/runner.ts';
import type { LambdaDeps } from '../../ocr-worker/lambda/deps.ts';
import { handleJobs } from '../../ocr-worker/lambda/job.ts';
import { finishRetrySeconds } from '../../ocr-worker/lambda/limits.ts';
import { BadMessage, parseJobMessage, parseTask, type PageTask } from '../../ocr-worker/lambda/messages.ts';
import { handlePages } from '../../ocr-worker/lambda/pages.ts';
import { born, fakeApi, fakeWorker, message, scanned } from './fakes.ts';

/** The Lambda handlers over the runner's fakes and a fake SQS: what the queues see and what the service gets. */

type Sent = { command: string; input: Record<string, unknown> };

/** SQS as the handlers use it; `refuse` makes SendMessageBatch refuse entries of the first call. */
function fakeSqs(refuse = 0) {
  const sent: Sent[] = [];
  let refusals = refuse;
  const sqs = {
    async send(command: SendMessageBatchCommand | ChangeMessageVisibilityCommand) {
      sent.push({ command: command.constructor.name, input: command.input as unknown as Record<string, unknown> });
      if (command instanceof SendMessageBatchCommand) {
        const entries = command.input.Entries ?? [];
        const failed = entries.slice(0, refusals).map((e) => ({ Id: e.Id!, Code: 'InternalError', SenderFault: false }));
        refusals = 0;
        return { Successful: entries.slice(failed.length).map((e) => ({ Id: e.Id, MessageId: 'x', MD5OfMessageBody: 'x' })), Failed: failed };
      }
      return {};
    },
  } as unknown as SQSClient;
  return { sqs, sent };
}

const lambdaDeps = (deps: ReturnType<typeof fakeWorker>['deps'], sqs: SQSClient): LambdaDeps => ({
  ...deps,
  apiFor: () => deps.api,
  sqs,
  openSourceWith: (bytes) => deps.openSource(bytes),
});

const event = (...bodies: string[]): SQSEvent =>
  ({ Records: bodies.map((body, i) => ({ messageId: `m${i}`, receiptHandle: `r${i}`, body })) }) as unknown as SQSEvent;

const tasksOf = (sent: Sent[]): PageTask[] =>
  sent
    .filter((s) => s.command === 'SendMessageBatchCommand')
    .flatMap((s) => (s.input.Entries as Array<{ MessageBody: string }>).map((e) => parseTask(e.MessageBody)));

describe('the job handler', () => {
  it('plans a 90-page job into tasks of 8 pages, sent ten to a call, and lets the message go', async () => {
    const service = fakeApi();
    const { deps } = fakeWorker(Array.from({ length: 90 }, (_, i) => scanned(i + 1)), { api: service.api });
    const { sqs, sent } = fakeSqs();
    const job = message();
    expect(await handleJobs(lambdaDeps(deps, sqs), event(JSON.stringify(job)), 'pages-queue')).toEqual({ batchItemFailures: [] });
    expect(sent.map((s) => (s.input.Entries as unknown[]).length)).toEqual([10, 2]);
    const tasks = tasksOf(sent);
    expect(tasks.map((t) => t.pages.length)).toEqual([...Array(11).fill(pagesPerTask), 2]);
    expect(tasks.flatMap((t) => t.pages)).toEqual(Array.from({ length: 90 }, (_, i) => i + 1));
    expect(tasks.every((t) => t.message.jobId === job.jobId && t.textLayer === undefined)).toBe(true);
    expect(service.pages).toEqual([]); // the job function reads no page
  });

  it('keeps the job message when SQS refuses a task, and sends the tasks again on the next delivery', async () => {
    const service = fakeApi();
    const ledger = memoryLedger();
    const { deps } = fakeWorker([scanned(1), scanned(2)], { api: service.api, ledger });
    const first = fakeSqs(1);
    const job = JSON.stringify(message());
    expect(await handleJobs(lambdaDeps(deps, first.sqs), event(job), 'q')).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }] });
    const again = fakeSqs();
    expect(await handleJobs(lambdaDeps(deps, again.sqs), event(job), 'q')).toEqual({ batchItemFailures: [] });
    expect(tasksOf(again.sent).map((t) => t.pages)).toEqual([[1, 2]]);
  });

  it('drops a message that is not a job (logged), and fails an unreadable file’s job once, with no tasks', async () => {
    const service = fakeApi();
    const { deps } = fakeWorker(new UnreadableFile('The PDF is password-protected'), { api: service.api });
    const { sqs, sent } = fakeSqs();
    const job = message();
    const out = await handleJobs(lambdaDeps(deps, sqs), event('not json', JSON.stringify({ jobId: 'x' }), JSON.stringify(job)), 'q');
    expect(out).toEqual({ batchItemFailures: [] });
    expect(sent).toEqual([]);
    expect(service.results).toEqual([expect.objectContaining({ jobId: job.jobId, status: 'failed', error: 'The PDF is password-protected' })]);
  });
});

describe('a page read again (a job message with a reread)', () => {
  const reread = (overrides: Parameters<typeof message>[0] = {}) => message({ language: 'en', reread: { rereadId: 'rr-1', pageNumber: 2, layout: 'single-block' }, ...overrides });
  /** The file's pages as a reread opens them: a text layer only when the policy trusts it. */
  const withPolicy = (deps: ReturnType<typeof fakeWorker>['deps'], sqs: SQSClient): LambdaDeps => ({
    ...lambdaDeps(deps, sqs),
    openSourceWith: async (bytes, policy) => {
      const source = await deps.openSource(bytes);
      const trusted = policy && 'trusted' in policy ? policy.trusted : true;
      return { ...source, page: async (n: number) => ({ ...(await source.page(n)), ...(trusted ? {} : { textLayer: undefined }) }) };
    },
  });

  it('reads that one page by OCR (never its text layer) in the language and layout asked, and posts it with the reread’s id; no task, no ledger', async () => {
    const service = fakeApi();
    const ledger = memoryLedger();
    const layouts: unknown[] = [];
    const { deps, recognized } = fakeWorker([scanned(1), born(2, 'layer text'), scanned(3)], { api: service.api, ledger }, {
      read: async (engine, image, model, options) => {
        layouts.push(options.layout);
        return { ...(await engine.recognize(image, model, options)), uncertain: [[0, 4]] };
      },
    });
    const { sqs, sent } = fakeSqs();
    const job = reread();
    expect(await handleJobs(withPolicy(deps, sqs), event(JSON.stringify(job)), 'q')).toEqual({ batchItemFailures: [] });
    expect(sent).toEqual([]);
    expect(recognized).toEqual([{ page: 'scan of page 2', model: 'eng' }]);
    expect(layouts).toEqual(['single-block']);
    expect(service.pages).toHaveLength(1);
    expect(service.pages[0]).toMatchObject({ pageNumber: 2, text: 'text of page 2', confidence: 90, uncertain: [[0, 4]], rereadId: 'rr-1', storageKey: expect.stringMatching(/\/2\.png$/) });
    expect(service.pages[0]!.status).toBeUndefined();
    expect(service.results).toEqual([]);
    expect(await ledger.job(job.jobId)).toBeUndefined();
  });

  it('posts a page it cannot read, or one past the file’s end, as failed with the reread’s id (the service keeps the page)', async () => {
    const service = fakeApi();
    const { deps } = fakeWorker([scanned(1), new PageError('This page could not be read by the text recognizer.')], { api: service.api });
    const { sqs } = fakeSqs();
    await handleJobs(withPolicy(deps, sqs), event(JSON.stringify(reread()), JSON.stringify(reread({ reread: { rereadId: 'rr-2', pageNumber: 9, layout: 'auto' } }))), 'q');
    expect(service.pages.map(({ pageNumber, status, error, rereadId }) => ({ pageNumber, status, error, rereadId }))).toEqual([
      { pageNumber: 2, status: 'failed', error: 'This page could not be read by the text recognizer.', rereadId: 'rr-1' },
      { pageNumber: 9, status: 'failed', error: 'The file has no page 9', rereadId: 'rr-2' },
    ]);
  });

  it('drops a reread it cannot act on: no page number, no id, a layout it does not know', () => {
    const body = (r: unknown) => JSON.stringify({ ...message(), reread: r });
    for (const r of [{ rereadId: 'x' }, { pageNumber: 2 }, { rereadId: 'x', pageNumber: 0 }, { rereadId: 'x', pageNumber: 2, layout: 'columns' }, 'page 2']) {
      expect(() => parseJobMessage(body(r))).toThrow(BadMessage);
    }
    expect(parseJobMessage(body({ rereadId: 'x', pageNumber: 2 })).reread).toEqual({ rereadId: 'x', pageNumber: 2, layout: 'auto' });
  });
});

describe('the pages handler', () => {
  it('reads each task’s pages, and the task that completes the job posts the final result once', async () => {
    const service = fakeApi();
    const ledger = memoryLedger();
    const book = Array.from({ length: 10 }, (_, i) => scanned(i + 1));
    const { deps } = fakeWorker(book, { api: service.api, ledger });
    const { sqs, sent } = fakeSqs();
    await handleJobs(lambdaDeps(deps, sqs), event(JSON.stringify(message())), 'q');
    const bodies = (sent[0]!.input.Entries as Array<{ MessageBody: string }>).map((e) => e.MessageBody);
    // Two containers, each with its own engine and owner, and one task delivered twice.
    const a = fakeWorker(book, { api: service.api, ledger }).deps;
    const b = fakeWorker(book, { api: service.api, ledger }).deps;
    expect(await handlePages(lambdaDeps(a, sqs), event(bodies[0]!), 'q')).toEqual({ batchItemFailures: [] });
    expect(await handlePages(lambdaDeps(b, sqs), event(bodies[1]!), 'q')).toEqual({ batchItemFailures: [] });
    expect(await handlePages(lambdaDeps(b, sqs), event(bodies[0]!), 'q')).toEqual({ batchItemFailures: [] });
    expect(service.pages.map((p) => p.pageNumber).sort((x, y) => x - y)).toEqual(book.map((_, i) => i + 1));
    expect(service.results).toEqual([expect.objectContaining({ status: 'completed', pageCount: 10 })]);
  });

  it('puts a task back for later while another worker posts the final result, and fails a task whose service is down', async () => {
    const service = fakeApi();
    const ledger = memoryLedger();
    const { deps } = fakeWorker([scanned(1)], { api: service.api, ledger });
    const { sqs, sent } = fakeSqs();
    const job = message();
    await handleJobs(lambdaDeps(deps, sqs), event(JSON.stringify(job)), 'q');
    const task = (sent[0]!.input.Entries as Array<{ MessageBody: string }>)[0]!.MessageBody;
    await ledger.claimFinish(job.jobId, 'another container', Date.now(), 600_000);
    expect(await handlePages(lambdaDeps(deps, sqs), event(task), 'pages-queue')).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }] });
    expect(sent.at(-1)).toEqual({
      command: 'ChangeMessageVisibilityCommand',
      input: { QueueUrl: 'pages-queue', ReceiptHandle: 'r0', VisibilityTimeout: finishRetrySeconds },
    });
    expect(finishRetrySeconds).toBe(300);

    const down = fakeApi();
    down.failWhen(() => true);
    const other = fakeWorker([scanned(1)], { api: down.api }).deps;
    await other.ledger.start(job.jobId, { pageCount: 1 }, Date.now());
    expect(await handlePages(lambdaDeps(other, sqs), event(task), 'q')).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }] });
  });
});

describe('messages', () => {
  it('reads docs/ocr-worker.md’s job message and refuses one without the fields the worker needs', () => {
    const job = message();
    expect(parseJobMessage(JSON.stringify(job))).toEqual(job);
    const { customPrompt: _c, metadata: _m, ...bare } = job;
    expect(parseJobMessage(JSON.stringify(bare))).toEqual(job);
    expect(() => parseJobMessage(JSON.stringify({ ...job, storage: { bucket: 'b' } }))).toThrow(/storage\.key/);
    expect(() => parseJobMessage(JSON.stringify({ ...job, language: 3 }))).toThrow(/language/);
    // The worker holds no token: a job without its credential cannot be reported on.
    const { credential: _credential, ...uncredentialed } = job;
    expect(() => parseJobMessage(JSON.stringify(uncredentialed))).toThrow(/credential/);
    expect(() => parseTask(JSON.stringify({ message: job, pages: [0] }))).toThrow(/page numbers/);
  });
});
