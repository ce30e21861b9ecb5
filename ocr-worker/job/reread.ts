import type { OcrJobMessage } from '../contract.ts';
import { openPages, readOnePage, type RunnerDeps } from './runner.ts';

/**
 * A message that asks for one page of a completed job again (`reread`; docs/ocr-worker.md, its paragraph "Reading a
 * page again"): that page is read by OCR (never its text layer: the reader asked for a new reading),
 * with the message's language and layout, its image put again, and posted through the page callback
 * with the reread's id. The job's ledger is neither read nor written: the job is finished there, and
 * a reread is no page of its plan. A redelivered message reads the page again and posts it again; the
 * service applies a reread's page once (the first post ends the pending reread), so the second post
 * writes nothing. A page the engine cannot read is posted as failed: the service keeps the page.
 */
export async function rereadPage(deps: Omit<RunnerDeps, 'ledger' | 'owner'>, message: OcrJobMessage): Promise<void> {
  const reread = message.reread;
  if (!reread) throw new Error('rereadPage takes a message with a reread');
  const source = await openPages(deps, message);
  // The file was read whole when the job ran: unreadable now, the reread can only fail.
  if (typeof source === 'string' || reread.pageNumber > source.pageCount) {
    if (typeof source !== 'string') await source.close();
    const error = typeof source === 'string' ? source : `The file has no page ${reread.pageNumber}`;
    await deps.api.postPage({ ...ids(message), pageNumber: reread.pageNumber, text: '', storageKey: null, pageCount: 0, pagesProcessed: 0, status: 'failed', error, rereadId: reread.rereadId });
    return;
  }
  try {
    const { entry, storageKey, uncertain } = await readOnePage(deps, message, source, reread.pageNumber, { layout: reread.layout });
    await deps.api.postPage({
      ...ids(message),
      pageNumber: reread.pageNumber,
      text: entry.text,
      storageKey,
      pageCount: source.pageCount,
      pagesProcessed: 0,
      confidence: entry.confidence ?? null,
      uncertain,
      rereadId: reread.rereadId,
      ...(entry.error === undefined ? {} : { status: 'failed', error: entry.error }),
    });
  } finally {
    await source.close();
  }
}

const ids = (message: OcrJobMessage) => ({ jobId: message.jobId, fileId: message.fileId, userId: message.userId });
