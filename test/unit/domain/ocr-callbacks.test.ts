import { beforeEach, describe, expect, it, vi } from 'vitest';
import { newJobId, newObjectId } from '../../../lib/ids.ts';
import { metadataView, ocrStatuses, textKey } from '../../../lib/ocr/book-text.ts';
import { recordFinalResult, recordPageResult, usageErrorText } from '../../../lib/ocr/jobs/callbacks.ts';
import { maxPageCount, pageIdOf } from '../../../lib/ocr/pages/page.ts';
import { sweepHalfSavedWrites, writerGoneAfterMs } from '../../../lib/ocr/loose-texts.ts';
import { bodyOf } from '../../support/bodies.ts';
import { fakeWorld, type FakeWorld } from '../../support/fakes/index.ts';
import { aFile, aSubscription, storedJob, storedUser } from './fixtures.ts';

/** docs/SPEC.md 3.1, the OCR state table: the page and final-result callbacks, on in-memory fakes. */
let world: FakeWorld;
beforeEach(() => {
  world = fakeWorld({ now: '2026-03-15T12:00:00.000Z' });
});

/** The callbacks as their routes call them: the body read by its contract first (its refusals are thrown as the route answers them). */
const pageBody = async (body: Record<string, unknown>) => recordPageResult(world.callbackDeps(), bodyOf('POST /ocr/result/page', body));
const page = (job: { jobId: string; fileId: string; userId: string }, fields: Record<string, unknown> = {}) =>
  pageBody({ jobId: job.jobId, fileId: job.fileId, userId: job.userId, pageNumber: 1, text: 'نص', ...fields });
const result = async (job: { jobId: string; fileId: string; userId: string }, fields: Record<string, unknown> = {}) =>
  recordFinalResult(world.callbackDeps(), bodyOf('POST /ocr/result', { jobId: job.jobId, fileId: job.fileId, userId: job.userId, ...fields }));
const stored = async (jobId: string) => (await world.ocr.byJobId(jobId))!;

async function aJob(fields: Parameters<typeof storedJob>[2] = {}) {
  const owner = await storedUser(world);
  const { book } = await storedJob(world, owner.userId, fields);
  return { ...book, owner };
}

describe('page callback, BookText exists', () => {
  it.each(ocrStatuses)('moves %s to processing and upserts the page', async (status) => {
    const job = await aJob({ status, pageCount: 3 });
    world.clock.advance(1000);
    expect(await page(job, { pageNumber: 2, text: 'الصفحة الثانية', pagesProcessed: 2 })).toEqual({ success: true });
    const book = await stored(job.jobId);
    expect(book.status).toBe('processing');
    expect(metadataView(book)).toMatchObject({ pagesProcessed: 2, lastPageUpdate: world.clock.iso() });
    expect(book.updatedAt).toBe(world.clock.iso());
    expect(await world.ocr.pages(job.bookTextId)).toEqual([
      { pageId: pageIdOf(job.bookTextId, 2), bookTextId: job.bookTextId, pageNumber: 2, text: 'الصفحة الثانية', storageKey: null, isAIGenerated: true, updatedAt: world.clock.iso() },
    ]);
  });

  it('updates pageCount only when the callback gives a truthy one', async () => {
    const job = await aJob({ pageCount: 7 });
    await page(job, { pageCount: 0 });
    expect((await stored(job.jobId)).pageCount).toBe(7);
    await page(job, {});
    expect((await stored(job.jobId)).pageCount).toBe(7);
    await page(job, { pageCount: 'twelve' });
    expect((await stored(job.jobId)).pageCount).toBe(7);
    await page(job, { pageCount: 12 });
    expect((await stored(job.jobId)).pageCount).toBe(12);
    // Not a whole number of pages a book can have: ignored, as a value of the wrong type is.
    for (const pageCount of [1.5, -3, maxPageCount + 1, 1e15]) await page(job, { pageCount });
    expect((await stored(job.jobId)).pageCount).toBe(12);
  });

  it('keeps pagesProcessed at the highest value reported (callbacks land out of order)', async () => {
    const job = await aJob();
    await page(job, { pageNumber: 5, pagesProcessed: 5 });
    await page(job, { pageNumber: 3, pagesProcessed: 3 });
    expect(metadataView(await stored(job.jobId)).pagesProcessed).toBe(5);
  });

  it('records one page error per page, in page order, only for a failed page with an error', async () => {
    const job = await aJob();
    await page(job, { pageNumber: 4, status: 'failed', error: 'blurred' });
    await page(job, { pageNumber: 2, status: 'failed', error: 'torn' });
    world.clock.advance(5000);
    await page(job, { pageNumber: 4, status: 'failed', error: 'still blurred' });
    await page(job, { pageNumber: 6, status: 'failed' });
    await page(job, { pageNumber: 7, status: 'completed', error: 'ignored' });
    expect(metadataView(await stored(job.jobId)).pageErrors).toEqual([
      { pageNumber: 2, error: 'torn', timestamp: '2026-03-15T12:00:00.000Z' },
      { pageNumber: 4, error: 'still blurred', timestamp: '2026-03-15T12:00:05.000Z' },
    ]);
  });

  it('replaces a page whole: a second callback for it takes the defaults for what it omits', async () => {
    const job = await aJob();
    await page(job, { pageNumber: 1, text: 'first', storageKey: `ocr-pages/${job.jobId}/1.png`, isAIGenerated: false });
    await page(job, { pageNumber: 1, text: 'second' });
    expect(await world.ocr.pages(job.bookTextId)).toMatchObject([{ pageNumber: 1, text: 'second', storageKey: null, isAIGenerated: true }]);
  });

  it('refuses missing fields and a page past the caps with a 400, writing nothing', async () => {
    const job = await aJob();
    await expect(pageBody({ jobId: job.jobId, fileId: job.fileId, pageNumber: 1 })).rejects.toMatchObject({
      kind: 'bad_request',
      message: 'Missing required fields: userId',
    });
    await expect(pageBody({ jobId: job.jobId, fileId: job.fileId, userId: job.userId })).rejects.toMatchObject({
      kind: 'bad_request',
      message: 'Missing required fields: pageNumber',
    });
    await expect(page(job, { pageNumber: 100_000 })).rejects.toMatchObject({ kind: 'bad_request', message: 'pageNumber must be at most 99999' });
    await expect(page(job, { pageNumber: 'one' })).rejects.toMatchObject({ kind: 'bad_request' });
    await expect(page(job, { text: 'x'.repeat(60_001) })).rejects.toMatchObject({ kind: 'bad_request' });
    expect(await world.ocr.pages(job.bookTextId)).toEqual([]);
    expect((await stored(job.jobId)).status).toBe('pending');
  });
});

describe('page callback, orphan (no BookText for the job)', () => {
  it('creates the BookText processing, in Arabic, named after the File when there is one', async () => {
    const userId = newObjectId();
    const file = aFile(userId, { fileName: 'Bulugh al-Maram.pdf' });
    world.ocr.files.set(file.fileId, file);
    const job = { jobId: newJobId(), fileId: file.fileId, userId };
    await page(job, { pageNumber: 3, pageCount: 9 });
    const book = await stored(job.jobId);
    expect(book).toMatchObject({ status: 'processing', language: 'ar', fileName: 'Bulugh al-Maram.pdf', pageCount: 9, tags: [], categories: [], visibility: 'private', userId });
    expect(await world.ocr.pages(book.bookTextId)).toMatchObject([{ pageNumber: 3 }]);
  });

  it('has no file name without a File, and makes one BookText for many callbacks of the job', async () => {
    const job = { jobId: newJobId(), fileId: newObjectId(), userId: newObjectId() };
    await Promise.all([1, 2, 3, 4].map((pageNumber) => page(job, { pageNumber })));
    expect(world.ocr.bookTexts.size).toBe(1);
    const book = await stored(job.jobId);
    expect(book.fileName).toBeNull();
    expect((await world.ocr.pages(book.bookTextId)).map((p) => p.pageNumber)).toEqual([1, 2, 3, 4]);
  });

  it('refuses ids that cannot name a job, File or user (the validation 500), creating nothing', async () => {
    await expect(page({ jobId: 'job-1', fileId: newObjectId(), userId: newObjectId() })).rejects.toMatchObject({ kind: 'internal', message: 'jobId must be a UUID' });
    await expect(page({ jobId: newJobId(), fileId: 'f', userId: newObjectId() })).rejects.toMatchObject({ kind: 'internal', message: 'fileId must be an ObjectId' });
    await expect(page({ jobId: newJobId(), fileId: newObjectId(), userId: 'u' })).rejects.toMatchObject({ kind: 'internal', message: 'userId must be an ObjectId' });
    expect(world.ocr.bookTexts.size).toBe(0);
  });
});

describe('final result, BookText exists', () => {
  it.each(ocrStatuses)('sets the supplied status %s', async (status) => {
    const job = await aJob({ status: 'processing' });
    const answer = await result(job, { status });
    expect(answer).toMatchObject({ message: 'OCR result saved successfully', bookTextId: job.bookTextId, status });
    const book = await stored(job.jobId);
    expect(book.status).toBe(status);
    expect(book.completedAt).toBe(status === 'completed' ? world.clock.iso() : null);
  });

  it('keeps the stored status when none is supplied, and refuses one outside the five with nothing written', async () => {
    const job = await aJob({ status: 'processing' });
    expect((await result(job, { language: 'fa' })).status).toBe('processing');
    expect(await stored(job.jobId)).toMatchObject({ status: 'processing', language: 'fa' });
    await expect(result(job, { status: 'done', extractedText: 'x', pages: [{ pageNumber: 1 }] })).rejects.toMatchObject({
      kind: 'internal',
      message: 'Invalid status: done',
    });
    expect(await stored(job.jobId)).toMatchObject({ status: 'processing', extractedText: '' });
    expect(await world.ocr.pages(job.bookTextId)).toEqual([]);
  });

  it.each([
    [{ pages: 'all' }, 'pages must be an array of objects'],
    [{ pages: [1] }, 'pages must be an array of objects'],
    // An array counts as an object, and has no page number; a status is checked before the pages.
    [{ pages: [[]] }, 'pages[0].pageNumber must be a whole number, 0 or more'],
    [{ pages: [{ pageNumber: 1 }, { pageNumber: 'x' }] }, 'pages[1].pageNumber must be a whole number, 0 or more'],
    [{ status: 'done', pages: 'all' }, 'Invalid status: done'],
    [{ metadata: [] }, 'metadata must be an object'],
  ])('answers a malformed result with the validation 500, writing nothing: %j', async (fields, message) => {
    const job = await aJob({ status: 'processing' });
    await expect(result(job, fields)).rejects.toMatchObject({ kind: 'internal', message });
    expect(await world.ocr.pages(job.bookTextId)).toEqual([]);
  });

  it('answers a result past a cap, or missing ids (all of them named at once), with the 400', async () => {
    const job = await aJob({ status: 'processing' });
    await expect(result(job, { pages: [{ pageNumber: 100_000 }] })).rejects.toMatchObject({ kind: 'bad_request', message: 'pages[0].pageNumber must be at most 99999' });
    await expect(result(job, { pages: [{ pageNumber: 1, text: 'x'.repeat(60_001) }] })).rejects.toMatchObject({ kind: 'bad_request', message: 'pages[0].text is longer than 60000 characters' });
    await expect(async () => recordFinalResult(world.callbackDeps(), bodyOf('POST /ocr/result', { fileId: '', status: 'done' }))).rejects.toMatchObject({
      kind: 'bad_request',
      message: 'Missing required fields: jobId, fileId, userId',
    });
  });

  it('merges metadata only when extractedText is also supplied, dropping the service’s own keys', async () => {
    const job = await aJob({ metadata: { source: 'upload', keep: 1 } });
    await result(job, { metadata: { source: 'ignored' } });
    expect((await stored(job.jobId)).metadata).toEqual({ source: 'upload', keep: 1 });
    await result(job, { extractedText: 'النص', metadata: { source: 'worker', engine: 'tesseract', pagesProcessed: 999, textStorageKey: 'elsewhere' } });
    const book = await stored(job.jobId);
    expect(book.metadata).toEqual({ source: 'worker', keep: 1, engine: 'tesseract' });
    expect(metadataView(book)).not.toHaveProperty('textStorageKey');
    expect(metadataView(book)).not.toHaveProperty('pagesProcessed');
  });

  it('upserts the pages sent and leaves the others', async () => {
    const job = await aJob();
    await page(job, { pageNumber: 1, text: 'one' });
    await page(job, { pageNumber: 2, text: 'two' });
    await result(job, { pages: [{ pageNumber: 2, text: 'TWO' }, { pageNumber: '3', text: 'three', isAIGenerated: false }] });
    expect((await world.ocr.pages(job.bookTextId)).map((p) => [p.pageNumber, p.text, p.isAIGenerated])).toEqual([
      [1, 'one', true],
      [2, 'TWO', true],
      [3, 'three', false],
    ]);
  });

  it('keeps a text of 10,000 characters inline; a longer one goes to storage with a 1,000-character preview', async () => {
    const job = await aJob();
    const short = 'ب'.repeat(10_000);
    await result(job, { extractedText: short });
    expect(await stored(job.jobId)).toMatchObject({ extractedText: short });
    expect((await stored(job.jobId)).storedText).toBeUndefined();
    expect(world.uploads.keys()).toEqual([]);

    const long = 'ا'.repeat(10_001);
    await result(job, { extractedText: long });
    const book = await stored(job.jobId);
    expect(book.extractedText).toBe(long.slice(0, 1_000));
    expect(book.storedText).toEqual({ version: expect.any(String), length: 10_001 });
    const key = textKey(job.jobId, book.storedText!.version);
    expect(world.uploads.keys()).toEqual([key]);
    expect(world.uploads.text(key)).toBe(long);
    expect(metadataView(book)).toMatchObject({ textStorageKey: key, textLength: 10_001 });

    // A later short text is inline again and the stored object goes.
    await result(job, { extractedText: 'short' });
    expect(await stored(job.jobId)).toMatchObject({ extractedText: 'short' });
    expect((await stored(job.jobId)).storedText).toBeUndefined();
    expect(world.uploads.keys()).toEqual([]);
  });

  it('replaces one stored text with another, leaving only the newest object', async () => {
    const job = await aJob();
    await result(job, { extractedText: 'a'.repeat(20_000) });
    await result(job, { extractedText: 'b'.repeat(30_000) });
    const book = await stored(job.jobId);
    expect(world.uploads.keys()).toEqual([textKey(job.jobId, book.storedText!.version)]);
    expect(world.uploads.text(world.uploads.keys()[0]!)).toBe('b'.repeat(30_000));
  });

  it('notes a replaced text whose removal failed, and the sweeper removes it, never the one the record names (issue 29)', async () => {
    const job = await aJob();
    await result(job, { extractedText: 'a'.repeat(20_000) });
    const first = textKey(job.jobId, (await stored(job.jobId)).storedText!.version);
    vi.spyOn(world.uploads, 'delete').mockRejectedValue(new Error('storage unavailable'));
    await result(job, { extractedText: 'b'.repeat(30_000) });
    vi.restoreAllMocks();
    const named = textKey(job.jobId, (await stored(job.jobId)).storedText!.version);
    expect(world.uploads.keys()).toEqual([first, named].sort());
    const later = new Date(world.now().getTime() + writerGoneAfterMs + 1);
    expect(await sweepHalfSavedWrites({ ...world.ocr.ports(), uploads: world.uploads }, later)).toEqual({ editsUndone: 0, looseTextsRemoved: 1 });
    expect(world.uploads.keys()).toEqual([named]);
  });
});

describe('final result, orphan', () => {
  it('creates the BookText with the supplied status, language, page count and metadata', async () => {
    const job = { jobId: newJobId(), fileId: newObjectId(), userId: newObjectId() };
    await result(job, { status: 'failed', language: 'ur', pageCount: 4, error: 'unreadable', metadata: { engine: 'x' } });
    expect(await stored(job.jobId)).toMatchObject({ status: 'failed', language: 'ur', pageCount: 4, error: 'unreadable', metadata: { engine: 'x' }, fileName: null });
  });

  it('starts pending in Arabic when the result names no status', async () => {
    const job = { jobId: newJobId(), fileId: newObjectId(), userId: newObjectId() };
    expect((await result(job, {})).status).toBe('pending');
    expect(await stored(job.jobId)).toMatchObject({ status: 'pending', language: 'ar', pageCount: 0 });
  });
});

describe('usage on completion', () => {
  async function subscriber(tier = 'basic', used = 0) {
    const owner = await storedUser(world);
    await world.subscriptions.put(aSubscription(owner.userId, tier));
    await world.subscriptions.setPagesUsed(owner.userId, '2026-03-01T00:00:00.000Z', used);
    const { book } = await storedJob(world, owner.userId, { status: 'processing' });
    return { ...book, owner };
  }
  const used = (userId: string) => world.subscriptions.pagesUsed(userId, '2026-03-01T00:00:00.000Z');

  it('records the pages once per job: a repeated completion answers the same usage and counts nothing', async () => {
    const job = await subscriber('basic', 95);
    const first = await result(job, { status: 'completed', pageCount: 10 });
    expect(first.usageInfo).toEqual({ freePages: 5, overagePages: 5, overageChargeCents: 10, totalPagesUsed: 105, remainingCredits: 0, paymentStatus: 'pending' });
    expect((await stored(job.jobId)).usageInfo).toEqual(first.usageInfo);
    const again = await result(job, { status: 'completed', pageCount: 10 });
    expect(again.usageInfo).toEqual(first.usageInfo);
    expect(await used(job.owner.userId)).toBe(105);
    expect(world.usage.logs.size).toBe(1);
  });

  it('counts pageCount, else the pages sent, else the stored page count', async () => {
    const a = await subscriber();
    await result(a, { status: 'completed', pages: [{ pageNumber: 1 }, { pageNumber: 2 }, { pageNumber: 3 }] });
    expect((await world.usage.forJob(a.jobId))?.pages).toBe(3);
    const b = await subscriber();
    await world.ocr.recordPage(b, { at: world.clock.iso(), pageCount: 8 });
    await result(b, { status: 'completed' });
    expect((await world.usage.forJob(b.jobId))?.pages).toBe(8);
  });

  it('bills only whole page counts a book can have: a fractional, negative or huge pageCount is ignored', async () => {
    const job = await subscriber();
    await result(job, { status: 'completed', pageCount: 1.3, pages: [{ pageNumber: 1 }, { pageNumber: 2 }] });
    expect((await world.usage.forJob(job.jobId))?.pages).toBe(2);
    const huge = await subscriber();
    await result(huge, { status: 'completed', pageCount: 1e12 });
    expect(await world.usage.forJob(huge.jobId)).toBeUndefined();
    expect((await stored(huge.jobId)).pageCount).not.toBe(1e12);
  });

  it('counts nothing for a completion without pages, nor for any other status', async () => {
    const job = await subscriber();
    expect((await result(job, { status: 'completed' })).usageInfo).toBeNull();
    for (const status of ['processing', 'failed', 'pending'] as const) expect((await result(job, { status, pageCount: 4 })).usageInfo).toBeNull();
    expect(world.usage.logs.size).toBe(0);
    expect(await used(job.owner.userId)).toBe(0);
  });

  it('answers without usage, and notes the failure on the record, when the user is unknown', async () => {
    const job = { jobId: newJobId(), fileId: newObjectId(), userId: newObjectId() };
    const answer = await result(job, { status: 'completed', pageCount: 2 });
    expect(answer).toMatchObject({ status: 'completed', usageInfo: null });
    expect(metadataView(await stored(job.jobId))).toMatchObject({ usageError: usageErrorText });
    expect(world.usage.logs.size).toBe(0);
  });
});
