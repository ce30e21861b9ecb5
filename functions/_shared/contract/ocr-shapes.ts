import * as v from 'valibot';
import { maxInflatedBodyBytes, type BodyLimits } from '../http/body.ts';
import { paymentStatuses } from '../../../lib/billing/usage.ts';
import { ocrStatuses, visibilities } from '../../../lib/ocr/book-text.ts';
import { maxPageNumber, maxPageTextLength, maxPagesPerRequest, maxUncertainRanges } from '../../../lib/ocr/pages/page.ts';
import { inlineTextLimit } from '../../../lib/ocr/text-storage.ts';
import { here, type Answer } from './contract.ts';
import { lifetime, nullableTimestamp, objectId, ocrErrorAnswer, timestamp, uuid } from './shapes.ts';
import { imageUrlSeconds } from '../../../lib/ocr/pages/read.ts';
import { noReasonGiven } from '../../../lib/ocr/jobs/outcome.ts';

/** A job's identity and its file, and its times, as every job and book view shows them. */
const jobFile = { jobId: uuid, fileId: objectId, fileName: v.nullable(v.string()) };
const jobTimes = { createdAt: timestamp, updatedAt: timestamp, completedAt: nullableTimestamp };
/** How far a job has got, and why it failed (added by this service: docs/decisions.md, "Job outcomes in the inbox"). */
const jobProgress = {
  pagesProcessed: v.pipe(v.number(), v.description('Pages the worker has reported so far (its highest `pagesProcessed`); 0 before the first.')),
  error: v.pipe(
    v.optional(v.string()),
    v.description(`Only when \`status\` is \`failed\`: why, in our words (the worker's job-level reason when it is a short plain sentence, else \`${noReasonGiven}\`).`),
  ),
};

/**
 * The shapes the OCR contracts share (docs/SPEC.md 2.1-2.5, 4.1), each a component of the document.
 * Answer bodies are strict, so an undocumented field fails the HTTP tests; a key only the owner,
 * editors and admins see is optional (absent for everyone else), a value that can be null nullable.
 */

const OcrStatus = v.pipe(v.picklist(ocrStatuses), v.description('A job’s state (docs/SPEC.md 3.1).'));
const Visibility = v.pipe(v.picklist(visibilities), v.description('`private` on creation; `public` books are readable by anyone.'));
const words = v.array(v.string());
const count = v.pipe(v.number(), v.integer(), v.minValue(0));

/** The upload's usage snapshot (docs/SPEC.md 2.4); null credits mean unlimited (editors and admins). */
const UsageSnapshot = v.pipe(
  v.strictObject({
    remainingCredits: v.nullable(v.number()),
    tierCredits: v.nullable(v.number()),
    pagesUsed: v.number(),
    billingPeriodEnd: timestamp,
  }),
  v.description('Page credits at upload time (docs/SPEC.md 2.4): `null` credits mean unlimited (editors and admins).'),
);

/** A completion's usage (docs/SPEC.md 2.4, final-result shape; docs/decisions.md, "usage on completion"). */
const UsageInfo = v.pipe(
  v.strictObject({
    freePages: v.number(),
    overagePages: v.number(),
    overageChargeCents: v.number(),
    totalPagesUsed: v.number(),
    remainingCredits: v.nullable(v.number()),
    paymentStatus: v.picklist(paymentStatuses),
  }),
  v.description('The pages a completion counted: from the monthly credits, the rest invoiced at the overage price (docs/decisions.md, "`paymentStatus`").'),
);

const PageError = v.pipe(
  v.strictObject({ pageNumber: count, error: v.string(), timestamp }),
  v.description('A page the worker reported as failed (docs/decisions.md, "page errors").'),
);

/** docs/SPEC.md 2.2: the client's keys, then the service's, which always win. */
const BookMetadata = v.pipe(
  v.objectWithRest(
    {
      pagesProcessed: v.optional(v.number()),
      lastPageUpdate: v.optional(timestamp),
      pageErrors: v.optional(v.array(PageError)),
      textStorageKey: v.optional(v.string()),
      textLength: v.optional(v.number()),
      usageInfo: v.optional(v.record(v.string(), v.unknown())),
      usageError: v.optional(v.string()),
    },
    v.unknown(),
  ),
  v.description('The book’s metadata (docs/SPEC.md 2.2): the keys the client sent (`jobMetadata`, a result’s `metadata`) and the service’s own, which are shown when set.'),
);

/** `POST /ocr`'s answer, and the presigned path's. */
const CreatedJob = v.pipe(
  v.strictObject({
    message: v.string(),
    jobId: uuid,
    bookTextId: objectId,
    fileId: objectId,
    fileName: v.string(),
    storageKey: v.string(),
    queueMessageId: v.string(),
    status: v.literal('pending'),
    usageInfo: UsageSnapshot,
  }),
  v.description('The job, queued: it starts `pending` (docs/SPEC.md 3.1).'),
);

const PresignedUpload = v.pipe(
  v.strictObject({
    uploadId: objectId,
    storageKey: v.pipe(
      v.string(),
      v.description('Where the POST stores the file (`incoming/…`). The job reads a copy of it made when the job is created, under its own key (`ocr/…`): sending the POST again later changes nothing of the job.'),
    ),
    expiresAt: timestamp,
    url: v.string(),
    fields: v.pipe(v.record(v.string(), v.string()), v.description('Form fields to send, in this order, before the file (a presigned POST to the bucket).')),
  }),
  v.description('Where to send the file: a multipart POST to `url` with `fields` then `file`, before `expiresAt`.'),
);

const JobStatus = v.pipe(
  v.strictObject({
    ...jobFile,
    status: OcrStatus,
    language: v.string(),
    pageCount: v.number(),
    processingTime: v.nullable(v.number()),
    ...jobProgress,
    ...jobTimes,
    hasFullText: v.pipe(v.boolean(), v.description(`Whether the whole text is in object storage (over ${inlineTextLimit.toLocaleString('en-US')} characters).`)),
  }),
  v.description('A job’s progress, without its text.'),
);

/** How sure the engine was of a page (an addition: docs/interface.md, "Confidence"). */
const reading = {
  confidence: v.pipe(
    v.nullable(v.pipe(v.number(), v.minValue(0), v.maxValue(100))),
    v.description('The OCR engine’s confidence in the page, 0..100; null for a text layer, a worker that gave none, or a page read before confidence was kept.'),
  ),
  uncertain: v.pipe(
    v.array(v.pipe(v.tuple([count, count]), v.description('`[start, end)` of the page’s text, in UTF-16 code units (JavaScript string indexes).'))),
    v.description(
      `The words read under the worker’s threshold, to underline: character ranges of \`text\`, in order, at most ${maxUncertainRanges.toLocaleString('en-US')}. Empty when none, and after an edit sent the page’s text.`,
    ),
  ),
};

const JobPage = v.pipe(
  v.strictObject({ _id: v.string(), pageNumber: count, text: v.string(), storageKey: v.nullable(v.string()), isAIGenerated: v.boolean(), ...reading }),
  v.description('One page of a job’s text (docs/SPEC.md 2.3).'),
);

const JobText = v.pipe(
  v.strictObject({
    ...jobFile,
    extractedText: v.pipe(v.string(), v.description('The whole text, from storage when the record holds only a preview.')),
    language: v.string(),
    pageCount: v.number(),
    pages: v.array(JobPage),
    status: OcrStatus,
    completedAt: nullableTimestamp,
  }),
  v.description('A job’s whole text and every page, in page order; empty or partial while the job runs.'),
);

/** What a job list and the book catalogue show of each entry. */
const listed = { status: OcrStatus, language: v.string(), tags: words, categories: words, pageCount: v.number(), processingTime: v.nullable(v.number()) };

const JobListItem = v.pipe(
  v.strictObject({
    jobId: uuid,
    bookTextId: objectId,
    fileId: objectId,
    fileName: v.nullable(v.string()),
    ...listed,
    ...jobProgress,
    ...jobTimes,
  }),
  v.description('One of the caller’s jobs.'),
);

/** The fields every book answer opens with; the File's are null for a BookText without one (an orphan's). */
const identity = {
  bookTextId: objectId,
  ...jobFile,
  author: v.nullable(v.string()),
  fileType: v.nullable(v.string()),
  fileSize: v.nullable(v.number()),
};
const ownerOnly = (schema: v.GenericSchema, what: string) => v.pipe(v.optional(schema), v.description(`${what} Only for the owner, editors and admins; absent for everyone else.`));

const BookListItem = v.pipe(
  v.strictObject({
    ...identity,
    userId: objectId,
    username: v.nullable(v.string()),
    userEmail: ownerOnly(v.nullable(v.string()), 'The owner’s email.'),
    ...listed,
    metadata: ownerOnly(BookMetadata, 'The metadata.'),
    visibility: Visibility,
    hasFullText: v.boolean(),
    ...jobTimes,
  }),
  v.description('A digitized book in the catalogue (docs/SPEC.md 4.1 `GET /ocr/books`).'),
);

const BookPage = v.pipe(
  v.strictObject({
    pageNumber: count,
    text: v.string(),
    storageKey: v.nullable(v.string()),
    imageUrl: v.pipe(v.nullable(v.string()), v.description(`The page image, signed for ${lifetime(imageUrlSeconds)}; null without an image of this book or when signing fails.`)),
    isAIGenerated: v.boolean(),
    ...reading,
  }),
  v.description('One page of a book read.'),
);

const BookTextView = v.pipe(
  v.strictObject({
    ...identity,
    storageKey: ownerOnly(v.nullable(v.string()), 'Where the uploaded file is stored.'),
    userId: objectId,
    username: v.nullable(v.string()),
    userEmail: ownerOnly(v.nullable(v.string()), 'The owner’s email.'),
    extractedText: v.pipe(v.optional(v.string()), v.description('The whole text; absent unless `includeText` is `true`.')),
    language: v.string(),
    tags: words,
    categories: words,
    pageCount: v.pipe(v.number(), v.description('As the worker reported it.')),
    totalPages: v.pipe(count, v.description('Pages stored.')),
    pageLimit: count,
    pageOffset: count,
    hasMore: v.boolean(),
    pages: v.array(BookPage),
    status: OcrStatus,
    processingTime: v.nullable(v.number()),
    metadata: ownerOnly(BookMetadata, 'The metadata.'),
    ...jobTimes,
    visibility: Visibility,
  }),
  v.description('A digitized book with one window of its pages (docs/SPEC.md 4.1 `GET /ocr/books/:bookTextId`).'),
);

const EditedBook = v.pipe(
  v.strictObject({
    bookTextId: objectId,
    ...jobFile,
    author: v.pipe(v.nullable(v.string()), v.description('Null for a book without a File (an orphan’s).')),
    visibility: Visibility,
    language: v.string(),
    tags: words,
    categories: words,
    pageCount: v.number(),
    status: OcrStatus,
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
  v.description('A book after an edit: no text, no pages.'),
);

export const ocrSchemas = {
  OcrStatus,
  UsageSnapshot,
  UsageInfo,
  PageError,
  BookMetadata,
  CreatedJob,
  PresignedUpload,
  JobStatus,
  JobPage,
  JobText,
  JobListItem,
  BookListItem,
  BookPage,
  BookTextView,
  EditedBook,
};

/** A route's own 400s (the body's are added by the document, functions/_shared/contract/document.ts). */
export const badRequestAnswer = (reasons: string): Answer => ocrErrorAnswer(reasons);

/** The examples' books, one in each language of the platform (real ids are ObjectIds and a UUID). */
export const sampleIds = {
  jobId: '0b6f3c1e-8a2d-4c55-9e0f-3a7b2c1d4e5f',
  bookTextId: '66f1c2a9e4b0a1b2c3d4e5f6',
  fileId: '66f1c2a9e4b0a1b2c3d4e5f5',
  userId: '66f1c2a9e4b0a1b2c3d4e5f4',
  uploadId: '66f1c2a9e4b0a1b2c3d4e5f3',
} as const;
export const samples = {
  english: {
    summary: 'An English book',
    fileName: 'The Forty Hadith.pdf',
    storageKey: 'ocr/3f0e9a4c-5b1d-4e2f-8a7b-6c5d4e3f2a1b-The_Forty_Hadith.pdf',
    author: 'Imam al-Nawawi',
    language: 'en',
    tags: ['hadith', 'ethics'],
    categories: ['hadith'],
    username: 'layla',
    pages: ['Actions are judged by intentions, and everyone will have what he intended.', 'Islam is built on five pillars.'],
  },
  arabic: {
    summary: 'An Arabic book',
    fileName: 'الأربعون النووية.pdf',
    storageKey: 'ocr/3f0e9a4c-5b1d-4e2f-8a7b-6c5d4e3f2a1b-الأربعون_النووية.pdf',
    author: 'الإمام النووي',
    language: 'ar',
    tags: ['حديث', 'أخلاق'],
    categories: ['الحديث'],
    username: 'ليلى',
    pages: ['إنما الأعمال بالنيات، وإنما لكل امرئ ما نوى.', 'بني الإسلام على خمس.'],
  },
} as const;
export type Sample = (typeof samples)[keyof typeof samples];

/** A sample page's reading: the first page's first word marked uncertain. */
export const sampleReading = (text: string, i: number) => ({
  confidence: i === 0 ? 71.4 : 91.2,
  uncertain: i === 0 ? [[0, text.indexOf(' ')]] : [],
});

/** Examples named as the model's (`english`, `arabic`), each made from its sample. */
export const bothLanguages = (value: (sample: Sample) => unknown) =>
  Object.fromEntries(Object.entries(samples).map(([name, sample]) => [name, { summary: sample.summary, value: value(sample) }]));

/**
 * The body of a route that takes a whole book's text and pages (the final result, `PATCH`): a
 * 2,000-page book is about 15 MB of JSON, sent compressed; each page is about 10 values, and the rest
 * (metadata at most 16 KB of JSON, tags, categories) fits in 20,000 more.
 */
export const bookBodyLimits: Partial<BodyLimits> = { maxBytes: maxInflatedBodyBytes, maxValues: maxPagesPerRequest * 10 + 20_000, compressed: true };

/** A page number that is not a whole number of 0 or more (the final result and PATCH answer it with the 500, a page report with the 400). */
export const pageNumberNotWhole = `${here} must be a whole number, 0 or more`;

/**
 * A page number as every write reads it: a whole number from 0, as a number or a numeric string; past
 * maxPageNumber a 400 on every route (docs/decisions.md, "Maxima and caps").
 */
export const pageNumberField = v.pipe(
  v.unknown(),
  v.transform((value) => (typeof value === 'string' && value.trim() !== '' ? Number(value) : value)),
  v.number(pageNumberNotWhole),
  v.integer(pageNumberNotWhole),
  v.minValue(0, pageNumberNotWhole),
  v.maxValue(maxPageNumber, `${here} must be at most ${maxPageNumber}`),
);

/** A page's text: longer than maxPageTextLength is a 400 on every write. */
export const pageTextField = v.pipe(v.string(), v.maxLength(maxPageTextLength, `${here} is longer than ${maxPageTextLength} characters`));

/** At most maxPagesPerRequest pages in one request, else a 400. */
export const tooManyPages = `${here} may list at most ${maxPagesPerRequest} pages in one request`;
