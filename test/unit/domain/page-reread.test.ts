import { beforeEach, describe, expect, it } from 'vitest';
import { localMacKey } from '../../../lib/auth/local-mac.ts';
import { jobCredentials } from '../../../lib/auth/job-credentials.ts';
import { DomainError } from '../../../lib/errors.ts';
import type { OcrJobMessage } from '../../../lib/ocr/jobs/upload.ts';
import { recordPageResult } from '../../../lib/ocr/jobs/callbacks.ts';
import { newPage } from '../../../lib/ocr/pages/page.ts';
import { noSourceFile, notRereadable, pageNotFound, requestReread, rereadPendingMs, type RereadDeps, type RereadRequest } from '../../../lib/ocr/pages/reread.ts';
import { bodyOf } from '../../support/bodies.ts';
import { fakeWorld, type FakeWorld } from '../../support/fakes/index.ts';
import { storedJob, storedUser } from './fixtures.ts';

/** Reading a page again (issue 33): who may ask, what is sent, once while pending, and what its page callback changes. */
let world: FakeWorld;
beforeEach(() => {
  world = fakeWorld({ now: '2026-03-15T12:00:00.000Z' });
});

const deps = (): RereadDeps => ({
  bookTexts: world.ocr,
  rereads: world.ocr,
  ocrQueue: world.queue,
  uploadsBucket: 'uploads',
  jobCredentials: jobCredentials(localMacKey(async () => 'a test secret')),
  now: world.now,
});
const auto: RereadRequest = { layout: 'auto' };
const sent = () => world.queue.sent.map((m) => m.body as OcrJobMessage);

/** A completed book of three pages, with its File. */
async function aBook(fields: Parameters<typeof storedJob>[2] = {}) {
  const owner = await storedUser(world);
  const { book, file } = await storedJob(world, owner.userId, { status: 'completed', pageCount: 3, language: 'ar', ...fields });
  await world.ocr.putPages([1, 2, 3].map((n) => newPage(book.bookTextId, n, { text: `page ${n}`, confidence: 40 + n, uncertain: [[0, 4]] }, world.clock.iso())));
  return { book, file: file!, owner };
}
const refusal = async (work: Promise<unknown>) => {
  const error = await work.then(() => undefined, (e: unknown) => e);
  return error instanceof DomainError ? { kind: error.kind, message: error.message } : error;
};

describe('asking for a page again', () => {
  it('queues the page for the worker with the book’s file, its job’s credential, the language and layout, and answers at once', async () => {
    const { book, file, owner } = await aBook();
    const answer = await requestReread(deps(), owner, book.bookTextId, '2', { layout: 'single-block', language: 'en' });
    expect(answer).toMatchObject({ success: true, bookTextId: book.bookTextId, pageNumber: 2, requestedAt: world.clock.iso() });
    expect(sent()).toHaveLength(1);
    expect(sent()[0]).toMatchObject({
      jobId: book.jobId,
      fileId: file.fileId,
      userId: owner.userId,
      storage: { bucket: 'uploads', key: file.storageKey },
      language: 'en',
      reread: { rereadId: answer.rereadId, pageNumber: 2, layout: 'single-block' },
    });
    expect(sent()[0]!.credential).toMatch(/^mkjob1\./);
  });

  it('reads in the book’s language unless asked otherwise', async () => {
    const { book, owner } = await aBook({ language: 'fa' });
    await requestReread(deps(), owner, book.bookTextId, '1', auto);
    expect(sent()[0]).toMatchObject({ language: 'fa', reread: { layout: 'auto' } });
  });

  it('sends nothing more while the page’s reread is pending: the same reread answers; after the pending time, a new one', async () => {
    const { book, owner } = await aBook();
    const first = await requestReread(deps(), owner, book.bookTextId, '1', auto);
    world.clock.advance(60_000);
    const again = await requestReread(deps(), owner, book.bookTextId, '1', { layout: 'single-block' });
    expect(again).toEqual(first);
    // Another page is its own.
    const other = await requestReread(deps(), owner, book.bookTextId, '3', auto);
    expect(other.rereadId).not.toBe(first.rereadId);
    expect(sent()).toHaveLength(2);
    world.clock.advance(rereadPendingMs);
    const later = await requestReread(deps(), owner, book.bookTextId, '1', auto);
    expect(later.rereadId).not.toBe(first.rereadId);
    expect(sent()).toHaveLength(3);
  });

  it('lets the owner, editors and admins ask; anyone else is refused before the page is looked at', async () => {
    const { book } = await aBook();
    for (const role of ['editor', 'admin'] as const) await requestReread(deps(), await storedUser(world, role), book.bookTextId, '1', auto);
    expect(await refusal(requestReread(deps(), await storedUser(world), book.bookTextId, '99', auto))).toEqual({ kind: 'forbidden', message: 'Unauthorized to read this book again' });
    expect(await refusal(requestReread(deps(), await storedUser(world), 'a'.repeat(24), '1', auto))).toEqual({ kind: 'not_found', message: 'Book not found' });
  });

  it('refuses a page outside the book (404), a path that is no page number (400), a book not completed or without a file (400)', async () => {
    const { book, owner } = await aBook();
    for (const n of ['0', '4', '999999']) expect(await refusal(requestReread(deps(), owner, book.bookTextId, n, auto))).toEqual({ kind: 'not_found', message: pageNotFound });
    for (const n of ['1.5', '-1', 'one', '', '1e3']) expect(await refusal(requestReread(deps(), owner, book.bookTextId, n, auto))).toMatchObject({ kind: 'bad_request' });
    const running = await aBook({ status: 'processing' });
    expect(await refusal(requestReread(deps(), running.owner, running.book.bookTextId, '1', auto))).toEqual({ kind: 'bad_request', message: notRereadable });
    const orphan = await storedUser(world);
    const { book: noFile } = await storedJob(world, orphan.userId, { status: 'completed', pageCount: 2 }, null);
    expect(await refusal(requestReread(deps(), orphan, noFile.bookTextId, '1', auto))).toEqual({ kind: 'bad_request', message: noSourceFile });
    expect(sent()).toEqual([]);
  });

  it('leaves nothing pending when the queue refuses the message: the next request sends it', async () => {
    const { book, owner } = await aBook();
    world.queue.failing = new Error('queue down');
    expect(await refusal(requestReread(deps(), owner, book.bookTextId, '1', auto))).toMatchObject({ kind: 'internal' });
    world.queue.failing = undefined;
    await requestReread(deps(), owner, book.bookTextId, '1', auto);
    expect(sent()).toHaveLength(1);
  });
});

describe('the page callback of a reread', () => {
  const post = (book: { jobId: string; fileId: string; userId: string }, fields: Record<string, unknown>) =>
    recordPageResult(world.callbackDeps(), bodyOf('POST /ocr/result/page', { jobId: book.jobId, fileId: book.fileId, userId: book.userId, ...fields }));

  it('replaces the page once, and nothing else of the book: a redelivered post writes nothing', async () => {
    const { book, owner } = await aBook();
    const { rereadId } = await requestReread(deps(), owner, book.bookTextId, '2', auto);
    world.clock.advance(5000);
    const reading = { pageNumber: 2, text: 'الصفحة الثانية', confidence: 88, uncertain: [[0, 6]], pageCount: 3, pagesProcessed: 0, rereadId };
    expect(await post(book, reading)).toEqual({ success: true });
    const pages = await world.ocr.pages(book.bookTextId);
    expect(pages[1]).toMatchObject({ pageNumber: 2, text: 'الصفحة الثانية', confidence: 88, uncertain: [[0, 6]] });
    const after = (await world.ocr.get(book.bookTextId))!;
    // The record is written with the page (its revision rises, so the index keeps this reading), its status and count as they were.
    expect(after).toMatchObject({ status: 'completed', pageCount: 3, updatedAt: world.clock.iso() });
    expect(after.rev ?? 0).toBeGreaterThan(book.rev ?? 0);

    // An editor corrects the page; the worker's message is delivered again and posts the same reading.
    await world.ocr.putPages([newPage(book.bookTextId, 2, { text: 'corrected' }, world.clock.iso())]);
    expect(await post(book, { ...reading, text: 'stale reading' })).toEqual({ success: true });
    expect((await world.ocr.pages(book.bookTextId))[1]!.text).toBe('corrected');
  });

  it('keeps the page as it was when the worker could not read it, and ends the reread', async () => {
    const { book, owner } = await aBook();
    const { rereadId } = await requestReread(deps(), owner, book.bookTextId, '1', auto);
    await post(book, { pageNumber: 1, text: '', status: 'failed', error: 'This page could not be read by the text recognizer.', rereadId });
    expect((await world.ocr.pages(book.bookTextId))[0]).toMatchObject({ text: 'page 1', confidence: 41 });
    expect(metadataErrors(await world.ocr.get(book.bookTextId))).toBeUndefined();
    // Ended: asked again, a new reread is sent.
    await requestReread(deps(), owner, book.bookTextId, '1', auto);
    expect(sent()).toHaveLength(2);
  });

  it('writes nothing for a reread the service does not know (another one is pending, or none)', async () => {
    const { book, owner } = await aBook();
    await requestReread(deps(), owner, book.bookTextId, '1', auto);
    await post(book, { pageNumber: 1, text: 'not asked for', rereadId: 'another' });
    await post(book, { pageNumber: 3, text: 'not asked for', rereadId: 'another' });
    expect((await world.ocr.pages(book.bookTextId)).map((p) => p.text)).toEqual(['page 1', 'page 2', 'page 3']);
  });
});

const metadataErrors = (book: { pageErrors?: unknown } | undefined) => {
  const errors = book?.pageErrors as Record<string, unknown> | undefined;
  return errors && Object.keys(errors).length ? errors : undefined;
};
