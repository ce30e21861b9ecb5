import { createHash } from 'node:crypto';
import { logger } from '../log.ts';
import { shorten } from '../shorten.ts';
import type { JobOutcomeType, NotificationData } from './notification.ts';
import { notify, type NotifyDeps, type NotifyInput } from './notify.ts';

/**
 * The notifications of job outcomes (docs/decisions.md, "Job outcomes in the inbox"): an OCR job or
 * an audio job ended, told to its owner or starter, once per job and outcome, in the job's language.
 */
export interface JobOutcome {
  type: JobOutcomeType;
  recipientId: string;
  /** The job the outcome is of: with the type, the notification's fixed id. */
  jobId: string;
  /** The file's or the book's name, when it has one. */
  name: string | null;
  arabic: boolean;
  /** Why it failed, in our words (a failure only). */
  reason?: string;
  /** The pages read (an OCR completion only). */
  pageCount?: number;
  data: NotificationData;
}

/** A file name or title longer than this is cut, so a title and body stay short on a phone. */
export const maxNameLength = 100;

/** Each type's title and body, in each language. */
const texts: Record<JobOutcomeType, { en: (o: Named) => [string, string]; ar: (o: Named) => [string, string] }> = {
  ocr_completed: {
    en: (o) => ['Text ready', `${o.name ?? 'Your file'} is digitized: ${pages(o.pageCount)}.`],
    ar: (o) => ['النص جاهز', `اكتمل استخراج نص ${o.name ?? 'ملفك'}: ${o.pageCount ?? 0} صفحة.`],
  },
  ocr_failed: {
    en: (o) => ['Digitizing failed', `${o.name ?? 'Your file'} could not be digitized: ${o.reason}`],
    ar: (o) => ['تعذّر استخراج النص', `تعذّر استخراج نص ${o.name ?? 'ملفك'}: ${o.reason}`],
  },
  audio_completed: {
    en: (o) => ['Audio ready', `The audio of ${o.name ?? 'your book'} is ready.`],
    ar: (o) => ['الصوت جاهز', `صوت ${o.name ?? 'كتابك'} جاهز.`],
  },
  audio_failed: {
    en: (o) => ['Audio failed', `The audio of ${o.name ?? 'your book'} could not be made: ${o.reason}`],
    ar: (o) => ['تعذّر إنشاء الصوت', `تعذّر إنشاء صوت ${o.name ?? 'كتابك'}: ${o.reason}`],
  },
};
type Named = Omit<JobOutcome, 'name'> & { name: string | null };
const pages = (n = 0) => `${n} ${n === 1 ? 'page' : 'pages'}`;

/** The name as a body quotes it: cut, in the language's quotation marks. */
const quoted = (name: string | null, arabic: boolean) => (name === null || name.trim() === '' ? null : arabic ? `«${shorten(name, maxNameLength)}»` : `“${shorten(name, maxNameLength)}”`);

/** One id per job and outcome: a repeated or racing outcome finds its notification already in the inbox. */
export const outcomeNotificationId = (type: JobOutcomeType, jobId: string) => createHash('sha256').update(`${type}#${jobId}`).digest('hex').slice(0, 24);

/** The notification an outcome makes. */
export function outcomeNotice(outcome: JobOutcome): NotifyInput {
  const named = { ...outcome, name: quoted(outcome.name, outcome.arabic) };
  const [title, body] = texts[outcome.type][outcome.arabic ? 'ar' : 'en'](named);
  return { recipientId: outcome.recipientId, type: outcome.type, title, body, data: outcome.data, notificationId: outcomeNotificationId(outcome.type, outcome.jobId) };
}

/** Arabic script in a name: the language a line book's notice is written in (a line book has no language field). */
export const looksArabic = (text: string | null | undefined) => /[\u0600-\u06FF]/.test(text ?? '');

/**
 * Tells the outcome: stores the notification (once) and pushes it. A failure to notify is logged and
 * never fails the job or the call that ended it.
 */
export async function tellOutcome(deps: NotifyDeps, outcome: JobOutcome): Promise<void> {
  try {
    await notify(deps, outcomeNotice(outcome));
  } catch (error) {
    logger.error('Could not notify a job outcome', { type: outcome.type, jobId: outcome.jobId, recipientId: outcome.recipientId, error: error as Error });
  }
}
