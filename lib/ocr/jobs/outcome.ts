import { shorten } from '../../shorten.ts';
import type { JobOutcome } from '../../notifications/job-outcomes.ts';
import type { BookText } from '../book-text.ts';

/** What a failed job shows when the worker gave no reason, or one that is not ours to show. */
export const noReasonGiven = 'No reason was given by the OCR worker';

/** A reason longer than this is cut: it is a sentence for a user, not a log. */
export const maxReasonLength = 300;

/**
 * What reads like a stack trace, a provider's or a network library's message, or a link: never shown
 * to a user (the worker's text is kept in the record; docs/decisions.md, "Job outcomes in the inbox").
 */
const notOurWords = /\n\s*at\s|^\s*at\s|\w+(Error|Exception)\b|Traceback|arn:aws|https?:\/\/|\bE[A-Z]{4,}\b|[{}<>]|\/[\w.-]+\/[\w.-]+/;

/** A failed job's reason, in our words: the worker's job-level `error` when it is a short plain sentence, else `noReasonGiven`. */
export function failureReason(error: string | null | undefined): string {
  const text = (error ?? '').trim();
  if (text === '' || notOurWords.test(text)) return noReasonGiven;
  return shorten(text.split('\n')[0]!.trim(), maxReasonLength);
}

/** The outcome a BookText's status tells its owner, if it is one: completed, or failed (either way). */
export function ocrOutcome(bookText: BookText): JobOutcome | undefined {
  const failed = bookText.status === 'failed' || bookText.status === 'submission_failed';
  if (bookText.status !== 'completed' && !failed) return undefined;
  return {
    type: failed ? 'ocr_failed' : 'ocr_completed',
    recipientId: bookText.userId,
    jobId: bookText.jobId,
    name: bookText.fileName,
    arabic: bookText.language === 'ar',
    ...(failed ? { reason: failureReason(bookText.error) } : { pageCount: bookText.pageCount }),
    data: { jobId: bookText.jobId, bookTextId: bookText.bookTextId },
  };
}
