import * as v from 'valibot';
import { bookFieldLimits, clientMetadata, languageProblem, languageTooLong, listFieldProblem, maxClientMetadataBytes, ocrStatuses, splitList, tooManyValues, visibilities, type Visibility } from '../../lib/ocr/book-text.ts';
import { catalogueSorts, defaultCatalogueSort } from '../../lib/ocr/catalogue/listing.ts';
import { bookUpdated, type BookEdit } from '../../lib/ocr/pages/edit.ts';
import { defaultPageOrder, pageOrders } from '../../lib/ocr/pages/page-order.ts';
import { noSourceFile, notRereadable, pageNotFound, pagePathRefused, rereadLayouts, rereadQueued, type RereadRequest } from '../../lib/ocr/pages/reread.ts';
import { bookImported } from '../../lib/ocr/export/import.ts';
import { invalidJobMetadata, jobFieldDefaults, type JobFields } from '../../lib/ocr/jobs/fields.ts';
import type { UploadRequest } from '../../lib/ocr/jobs/presigned-upload.ts';
import { maxPageNumber, maxPageTextLength, maxPagesPerRequest } from '../../lib/ocr/pages/page.ts';
import { jobCreated, jobCreationFailed, noFileUploaded } from '../../lib/ocr/jobs/upload.ts';
import { acceptedUploadTypes, maxOpenUploads, maxUploadBytes, tooLargeMessage, unclaimedUploadSeconds } from '../../lib/ocr/jobs/upload-rules.ts';
import { platformLimits } from '../_shared/http/platform-limits.ts';
import { defaultPageLimit, maxOffset, maxPageLimit } from '../../lib/paging.ts';
import { inlineTextLimit } from '../../lib/ocr/text-storage.ts';
import { contracts, here, jsonAnswer, textAnswer, type Issue } from '../_shared/contract/contract.ts';
import {
  badRequestAnswer,
  bookBodyLimits,
  bothLanguages,
  ocrSchemas as s,
  pageNumberField,
  pageNumberNotWhole,
  sampleIds as ids,
  sampleReading,
  tooManyPages,
  type Sample,
} from '../_shared/contract/ocr-shapes.ts';
import {
  handedOverAnswer,
  ignoredUnless,
  lifetime,
  isPlainObject,
  isString,
  listLimit,
  listOffset,
  ocrErrorAnswer,
  pathId,
  queryChoice,
  queryFlag,
  queryList,
  queryNumber,
  queryOffset,
  queryOneOf,
  queryText,
  readBy,
} from '../_shared/contract/shapes.ts';

/** `ocr-api` (docs/SPEC.md 4.1): uploads (multipart and presigned), jobs, and the digitized books but their export. */

const at = '2026-11-23T09:30:00.000Z';
const done = '2026-11-23T09:34:12.000Z';

// Requests.

const MiB = 1024 * 1024;
/** A form's file, base64 in Lambda's request event (4 bytes sent for 3), at most: about this many MB. */
const formFileMb = Math.floor(((platformLimits.lambdaRequestBytes * 3) / 4 / MiB) * 10) / 10;
const jobPath = v.object({ jobId: pathId('The job’s UUID.') });
const subscriptionNote = 'Needs an active subscription (editors and admins pass without one), checked before the file or body is read.';
const refusedFile = textAnswer(
  `A refused file, in plain text (docs/SPEC.md 7, as the spec’s upload parser answered): \`Invalid file type: <type>. Allowed types: ...\` or \`${tooLargeMessage()}\`.`,
);
const subscriptionRequired = ocrErrorAnswer('No active subscription: `error: "SUBSCRIPTION_REQUIRED"`, `subscriptionRequired: true` (docs/SPEC.md 7).');

/** A listing filter's values: at most as many as a book may carry (400 past it). */
const filterList = (name: 'tags' | 'categories', description: string) =>
  v.pipe(queryList(`${description} At most ${bookFieldLimits.listValues} (400 past it).`), v.maxLength(bookFieldLimits.listValues, tooManyValues(name)));

/** A text field as a job reads it: trimmed; empty, or not text, it is not sent. */
const trimmedText = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
/** A list as sent: text, or an array (its items read as text); anything else is not sent. */
const sentList = (value: unknown) => (Array.isArray(value) ? value.map(String) : typeof value === 'string' ? value : undefined);
/** Read by `read` (what it cannot read is absent), then checked and documented by `schema`. */
const readAs = <S extends v.GenericSchema>(read: (value: unknown) => unknown, schema: S) => v.pipe(v.unknown(), v.transform((value) => read(value) as v.InferInput<S>), schema);

/** A JSON object, or its text; else the spec's 500. */
const jobMetadataSent = v.rawCheck<unknown>(({ dataset, addIssue }) => {
  let parsed = dataset.value;
  if (typeof parsed === 'string') {
    try {
      parsed = JSON.parse(parsed);
    } catch {
      parsed = undefined;
    }
  }
  if (!isPlainObject(parsed)) addIssue({ message: invalidJobMetadata });
});
/** The metadata kept: the service's own keys dropped; over the size a 400. */
const keptJobMetadata = v.rawTransform<string | Record<string, unknown>, Record<string, unknown>>(({ dataset, addIssue, NEVER }) => {
  const value = typeof dataset.value === 'string' ? (JSON.parse(dataset.value) as Record<string, unknown>) : dataset.value;
  try {
    return clientMetadata(value, (message) => new Error(message));
  } catch (error) {
    addIssue({ message: `Invalid jobMetadata: ${(error as Error).message}` });
    return NEVER;
  }
});

/**
 * The job's optional fields (docs/SPEC.md 4.1 `POST /ocr`): as form fields, or in the presigned path's
 * JSON, `list` and `metadata` saying how each is sent. Read in the spec's order, with its defaults;
 * an empty text is not sent.
 */
const jobFieldEntries = (list: v.GenericSchema<string | string[]>, metadata: v.GenericSchema<string | Record<string, unknown>>) => ({
  fileName: v.optional(readAs(trimmedText, v.optional(v.pipe(v.string(), v.description('Names the File; default the uploaded file’s name.'))))),
  language: v.optional(
    v.pipe(
      readAs(trimmedText, v.optional(v.pipe(v.string(), v.description('The book’s language.')), jobFieldDefaults.language)),
      v.check((language: string) => !languageProblem(language), languageTooLong),
    ),
    jobFieldDefaults.language,
  ),
  author: v.optional(readAs(trimmedText, v.optional(v.pipe(v.string(), v.description('Stored on the File.')), jobFieldDefaults.author)), jobFieldDefaults.author),
  tags: jobList('tags', list, 'Comma-separated; trimmed, empties dropped.'),
  categories: jobList('categories', list, 'Comma-separated; when none, the File gets `ocr` and the BookText none.'),
  visibility: v.optional(
    v.pipe(
      readAs(
        (value) => (typeof value === 'string' ? value : undefined),
        v.optional(v.pipe(v.string(), v.description(`\`public\` or \`private\`; any other value reads as \`${jobFieldDefaults.visibility}\` (the File’s).`)), jobFieldDefaults.visibility),
      ),
      v.transform((value): Visibility => (value === 'public' ? 'public' : jobFieldDefaults.visibility)),
    ),
    jobFieldDefaults.visibility,
  ),
  customPrompt: v.optional(readAs(trimmedText, v.optional(v.pipe(v.string(), v.description('Forwarded to the OCR worker.'))))),
  jobMetadata: v.optional(
    v.pipe(
      readAs((value) => (value === null || value === '' ? undefined : value), v.optional(v.pipe(v.unknown(), jobMetadataSent, metadata, keptJobMetadata))),
      v.transform((value) => value ?? {}),
      v.description(`A JSON object, kept as the book’s metadata and forwarded (docs/SPEC.md 2.2; the service’s own keys are dropped). Not an object: the 500 \`${invalidJobMetadata}\`.`),
    ),
    {},
  ),
});
function jobList(name: 'tags' | 'categories', list: v.GenericSchema<string | string[]>, description: string) {
  return v.optional(
    v.pipe(
      readAs(sentList, v.optional(v.pipe(list, v.description(description)))),
      v.transform((value) => (value === undefined ? [] : splitList(value))),
      v.check((values: string[]) => !listFieldProblem(values, name), (issue) => listFieldProblem(issue.input as string[], name)!),
    ),
    [],
  );
}

/** A job's fields as sent in JSON (the presigned path) or a form (`POST /ocr`, text only), read. */
const jobFields = v.pipe(
  v.object(jobFieldEntries(v.union([v.string(), v.array(v.string())]), v.union([v.string(), v.record(v.string(), v.unknown())]))),
  v.transform(({ jobMetadata, ...fields }): JobFields => ({ ...fields, fileName: fields.fileName, customPrompt: fields.customPrompt, metadata: jobMetadata })),
) satisfies v.GenericSchema<unknown, JobFields>;

/** A job's fields: a cap is the 400; `jobMetadata` that is not a JSON object the spec's 500. */
const jobFieldsRefusal = (issue: Issue) => (issue.message === invalidJobMetadata ? 500 : 400);

const uploadForm = v.object({
  file: v.pipe(
    v.string(),
    v.description(`The scan: one file of ${acceptedUploadTypes.join(', ')}; at most ${maxUploadBytes / MiB} MB, but a request carries about ${formFileMb} MB at most (use \`POST /ocr/uploads\` beyond).`),
    v.metadata({ contentMediaType: 'application/octet-stream' }),
  ),
  ...jobFieldEntries(v.string(), v.string()),
});

/** Each field of the type it has to be, else the one 400 naming all three. */
const uploadRequestRefused = 'fileName, fileType and fileSize (bytes, a whole number above 0) are required';
const presignRequest = v.object({
  fileName: v.pipe(v.string(uploadRequestRefused), v.transform((name) => name.trim()), v.minLength(1, uploadRequestRefused), v.description('The file’s name.')),
  // A type the uploads do not take is refused as `POST /ocr` refuses it (the plain-text 500), by the domain.
  fileType: v.pipe(
    v.string(uploadRequestRefused),
    v.transform((type) => type.trim().toLowerCase()),
    v.minLength(1, uploadRequestRefused),
    v.description(`Its MIME type (case-insensitive): ${acceptedUploadTypes.join(', ')}.`),
  ),
  fileSize: v.pipe(
    v.number(uploadRequestRefused),
    v.integer(uploadRequestRefused),
    v.minValue(1, uploadRequestRefused),
    v.description('Its size in bytes: the presigned POST accepts exactly this many.'),
  ),
}, uploadRequestRefused) satisfies v.GenericSchema<unknown, UploadRequest>;

/** PATCH's refusals (docs/SPEC.md lists no 400 there): a malformed field is the 500 with the reason; a page cap the 400 (docs/decisions.md, "Maxima and caps"). */
/** A name: trimmed and not empty (else the 500 naming it). */
const nonEmptyText = (name: string) => {
  const refused = `${name} must be a non-empty string`;
  return v.pipe(
    v.string(refused),
    v.transform((value) => value.trim()),
    v.minLength(1, refused),
  );
};
const nonEmpty = (name: string, description: string) => v.optional(v.pipe(nonEmptyText(name), v.description(description)));
const listOf = (name: 'tags' | 'categories', description: string) =>
  v.optional(
    v.pipe(
      v.custom<string | string[]>((value) => typeof value === 'string' || (Array.isArray(value) && value.every(isString)), `${name} must be an array of strings or a comma-separated string`),
      v.union([v.array(v.string()), v.string()]),
      v.transform((value: string | string[]) => splitList(value)),
      v.check((values: string[]) => !listFieldProblem(values, name), (issue) => listFieldProblem(issue.input as string[], name)!),
      v.description(description),
    ),
  );

/** A page's fields as an edit gives them: of their types (else the 500 naming the field), the text within its cap. */
const editedPageFields = {
  text: v.optional(v.pipe(v.string(`${here} must be a string`), v.maxLength(maxPageTextLength, `${here} is longer than ${maxPageTextLength} characters`))),
  storageKey: v.optional(v.nullable(v.string(`${here} must be a string or null`))),
  isAIGenerated: v.optional(v.boolean(`${here} must be a boolean`)),
};
/** `pages` as an array: each item's page number first (an item that is not an object has none), then its fields. */
const replacedPages = v.pipe(
  v.array(v.unknown()),
  v.maxLength(maxPagesPerRequest, tooManyPages),
  v.array(v.pipe(v.unknown(), v.transform((item) => (isPlainObject(item) ? item : {})), v.object({ pageNumber: pageNumberField, ...editedPageFields }, pageNumberNotWhole))),
);
/** `pages` as an object keyed by page number: each key, then its fields. */
const changedPages = v.pipe(
  v.record(v.string(), v.unknown()),
  v.maxEntries(maxPagesPerRequest, tooManyPages),
  // A key is text; read as a page number (an object's keys stay text to a record, so the number is only checked here).
  v.record(
    pageNumberField as unknown as v.GenericSchema<string, string>,
    v.pipe(v.custom<Record<string, unknown>>(isPlainObject, `${here} must be an object`), v.object(editedPageFields)),
  ),
);

const pageInput = v.object({
  text: v.optional(v.pipe(v.string(), v.maxLength(maxPageTextLength))),
  storageKey: v.optional(v.nullable(v.string())),
  isAIGenerated: v.optional(v.boolean()),
});
const pageNumber = pageNumberField;

const bookEdit = v.pipe(
  v.looseObject({}),
  v.check((body) => body.extractedText === undefined || isString(body.extractedText), 'extractedText must be a string'),
  v.object({
    fileName: nonEmpty('fileName', 'Written to the File too.'),
    author: nonEmpty('author', 'Written to the File (ignored for an orphan, which has none).'),
    language: v.optional(v.pipe(nonEmptyText('language'), v.check((language: string) => !languageProblem(language), languageTooLong))),
    extractedText: v.optional(v.pipe(v.string(), v.description(`Replaces the book-level text; over ${inlineTextLimit.toLocaleString('en-US')} characters it goes to object storage.`))),
    tags: listOf('tags', 'Replaces the tags; a string is split on commas.'),
    categories: listOf('categories', 'Replaces the categories; a string is split on commas.'),
    pages: v.optional(
      v.pipe(
        v.custom<unknown[] | Record<string, unknown>>((value) => typeof value === 'object' && value !== null, 'pages must be an array or an object keyed by page number'),
        readBy<unknown[] | Record<string, unknown>>((value) => (Array.isArray(value) ? replacedPages : changedPages)),
        v.union([v.array(v.object({ pageNumber, ...pageInput.entries })), v.record(v.string(), pageInput)]),
        v.transform((pages): NonNullable<BookEdit['pages']> =>
          Array.isArray(pages) ? { replace: pages } : { change: Object.entries(pages).map(([key, fields]) => ({ pageNumber: Number(key), ...fields })) },
        ),
        v.description(
          `An array upserts each page whole (text empty, storageKey null, isAIGenerated true when absent); an object keyed by page number changes only the fields given. Unlisted pages are untouched. At most ${maxPagesPerRequest} pages, numbers 0..${maxPageNumber}, ${maxPageTextLength} characters of text a page.`,
        ),
      ),
    ),
    visibility: ignoredUnless(
      (value) => visibilities.includes(value as Visibility),
      v.pipe(v.string(), v.transform((value) => value as Visibility), v.description(`Applied only when one of ${visibilities.join(', ')}; other values are ignored.`)),
    ),
  }),
) satisfies v.GenericSchema<unknown, BookEdit>;

/** A page cap is the 400; anything else wrong the spec's 500 with the reason. */
const editRefusal = (issue: Issue) => (['max_length', 'max_value', 'max_entries'].includes((issue.issues?.[0] ?? issue).type) ? 400 : 500);

// Answers' examples.

const createdJob = (x: Sample) => ({
  message: jobCreated,
  jobId: ids.jobId,
  bookTextId: ids.bookTextId,
  fileId: ids.fileId,
  fileName: x.fileName,
  storageKey: x.storageKey,
  queueMessageId: '5adb023a-c82e-4d1f-9a3b-7c6d5e4f3a2b',
  status: 'pending',
  usageInfo: { remainingCredits: 88, tierCredits: 100, pagesUsed: 12, billingPeriodEnd: '2026-12-01T00:00:00.000Z' },
});
const common = (x: Sample) => ({ jobId: ids.jobId, fileId: ids.fileId, fileName: x.fileName, language: x.language, pageCount: x.pages.length });
/** What a listed book and a read one begin with, in the samples. */
const sampleFile = (x: Sample) => ({
  bookTextId: ids.bookTextId,
  jobId: ids.jobId,
  fileId: ids.fileId,
  fileName: x.fileName,
  author: x.author,
  fileType: 'application/pdf',
  fileSize: 734_003,
});
const listItem = (x: Sample) => ({
  ...sampleFile(x),
  userId: ids.userId,
  username: x.username,
  status: 'completed',
  language: x.language,
  tags: x.tags,
  categories: x.categories,
  pageCount: x.pages.length,
  processingTime: 252_000,
  visibility: 'public',
  hasFullText: false,
  createdAt: at,
  updatedAt: done,
  completedAt: done,
});
const bookView = (x: Sample) => ({
  ...sampleFile(x),
  storageKey: x.storageKey,
  userId: ids.userId,
  username: x.username,
  userEmail: 'layla@example.com',
  extractedText: x.pages.join('\n\n'),
  language: x.language,
  tags: x.tags,
  categories: x.categories,
  pageCount: x.pages.length,
  totalPages: x.pages.length,
  pageLimit: defaultPageLimit,
  pageOffset: 0,
  hasMore: false,
  pages: x.pages.map((text, i) => ({
    pageNumber: i + 1,
    text,
    storageKey: `ocr-pages/${ids.jobId}/page-${i + 1}.png`,
    imageUrl: `https://uploads.example.com/ocr-pages/${ids.jobId}/page-${i + 1}.png?X-Amz-Expires=3600`,
    isAIGenerated: true,
    ...sampleReading(text, i),
  })),
  status: 'completed',
  processingTime: 252_000,
  metadata: { source: 'scanner', pagesProcessed: x.pages.length, lastPageUpdate: done },
  createdAt: at,
  updatedAt: done,
  completedAt: done,
  visibility: 'private',
});

// Query values.

const statusList = ocrStatuses.join(', ');

/** Each route's 500 text (its contract's `failure`). */
const uploadFailed = 'Error creating upload';
const statusFailed = 'Error fetching job status';
const textFailed = 'Error fetching text';
const jobsFailed = 'Error fetching jobs';
const booksFailed = 'Error fetching books';
const bookFailed = 'Error fetching book';
const editFailed = 'Error updating book';
const importFailed = 'Error importing book';
const rereadFailed = 'Error reading the page again';

/** A reread's options: both optional; a layout not one of the two, or a language past its bound, is a 400. */
const rereadRequest = v.pipe(
  v.object({
    language: v.optional(
      v.pipe(
        v.string('language must be a string'),
        v.transform((language) => language.trim()),
        v.minLength(1, 'language must not be empty'),
        v.check((language: string) => !languageProblem(language), languageTooLong),
        v.description('The language to read the page in (the model: `ar`, `fa`, `ur`, `en`, …); default the book’s.'),
      ),
    ),
    layout: v.optional(
      v.picklist(rereadLayouts, `layout must be one of ${rereadLayouts.join(', ')}`),
      'auto',
    ),
  }),
  v.description(
    '`layout`: `auto` (default: the engine finds the columns and blocks, tesseract’s page segmentation mode 3, as the first reading) or `single-block` (the page as one block of text, mode 6: better on a one-column page whose lines the automatic layout splits, wrong across two columns).',
  ),
) satisfies v.GenericSchema<unknown, RereadRequest>;

export const ocrApiContracts = contracts({
  'POST /ocr': {
    tag: 'OCR jobs',
    summary: 'Upload a scan and start its OCR job',
    failure: jobCreationFailed,
    description: `A multipart form with one file and the job’s optional fields; answers at once with the queued job. ${subscriptionNote} When only the queue send fails, the File and the pending BookText already exist (docs/SPEC.md 4.1).`,
    body: { kind: 'multipart', schema: uploadForm, fields: jobFields, invalid: jobFieldsRefusal },
    responses: {
      201: jsonAnswer('The job, queued.', s.CreatedJob, bothLanguages(createdJob)),
      400: badRequestAnswer(`\`${noFileUploaded}\`; a body that is not \`multipart/form-data\`; \`jobMetadata\` over ${maxClientMetadataBytes.toLocaleString('en-US')} bytes of JSON`),
      403: subscriptionRequired,
      500: [
        refusedFile,
        ocrErrorAnswer(`\`${jobCreationFailed}\`: the subscription could not be verified, \`jobMetadata\` is not a JSON object, or storing or queueing failed.`),
      ],
    },
  },
  'POST /ocr/uploads': {
    tag: 'OCR jobs',
    summary: 'Ask for a presigned upload (files too large for a request)',
    failure: uploadFailed,
    description: `Not in docs/SPEC.md (docs/interface.md, "Large files: the presigned upload"): a request carries about ${formFileMb} MB of file at most, so larger files go straight to the bucket. Send the file with the answer’s presigned POST, then create the job with \`POST /ocr/uploads/{uploadId}/job\`. The type and size rules are \`POST /ocr\`’s. ${subscriptionNote} At most ${maxOpenUploads} uploads not yet made into jobs; an unused one is removed after ${lifetime(unclaimedUploadSeconds)}.`,
    body: {
      kind: 'json',
      schema: presignRequest,
      invalid: 400,
      required: true,
      examples: bothLanguages((x) => ({ fileName: x.fileName, fileType: 'application/pdf', fileSize: 73_400_320 })),
    },
    responses: {
      201: jsonAnswer(
        'Where to send the file.',
        s.PresignedUpload,
        bothLanguages((x) => ({
          uploadId: ids.uploadId,
          storageKey: x.storageKey,
          expiresAt: '2026-11-23T10:30:00.000Z',
          url: 'https://uploads.example.com/',
          fields: { 'Content-Type': 'application/pdf', key: x.storageKey, Policy: 'eyJleHBpcmF0aW9uIjoi...', 'X-Amz-Signature': '6f1c2a9e...' },
        })),
      ),
      400: badRequestAnswer(`\`${uploadRequestRefused}\``),
      403: subscriptionRequired,
      429: ocrErrorAnswer(`The caller already has ${maxOpenUploads} uploads not yet made into jobs.`),
      500: [refusedFile, ocrErrorAnswer(`\`${uploadFailed}\`: the subscription could not be verified, or signing or saving failed.`)],
    },
  },
  'POST /ocr/uploads/{uploadId}/job': {
    tag: 'OCR jobs',
    summary: 'Create the OCR job from a finished presigned upload',
    failure: jobCreationFailed,
    description: `The same fields (as JSON; \`tags\` and \`categories\` may be arrays, \`jobMetadata\` an object) and the same answer as \`POST /ocr\`. The stored file is checked again against the declared type and size. ${subscriptionNote}`,
    params: v.object({ uploadId: pathId('The upload’s id, from `POST /ocr/uploads`.') }),
    body: {
      kind: 'json',
      schema: jobFields,
      invalid: jobFieldsRefusal,
      examples: bothLanguages((x) => ({ language: x.language, author: x.author, tags: x.tags, categories: x.categories, visibility: 'public', jobMetadata: { source: 'scanner' } })),
    },
    responses: {
      201: jsonAnswer('The job, queued.', s.CreatedJob, bothLanguages(createdJob)),
      400: badRequestAnswer(`The upload was already used for a job; the file was not uploaded yet; \`jobMetadata\` over ${maxClientMetadataBytes.toLocaleString('en-US')} bytes of JSON`),
      403: [subscriptionRequired, ocrErrorAnswer('`Unauthorized to use this upload`: another user’s.')],
      404: ocrErrorAnswer('`Upload not found` (also for an id that cannot be one).'),
      500: [
        textAnswer('The stored file is refused, in plain text (docs/SPEC.md 7): its type or size, or it does not match what was declared (the object is removed).'),
        ocrErrorAnswer(`\`${jobCreationFailed}\`: the subscription could not be verified, \`jobMetadata\` is not a JSON object, or storing or queueing failed.`),
      ],
    },
  },
  'GET /ocr/status/{jobId}': {
    tag: 'OCR jobs',
    summary: 'Follow a job',
    failure: statusFailed,
    description: 'The job’s creator, editors and admins, and the OCR worker with the job’s own credential (its message’s `credential`). No text is returned.',
    params: jobPath,
    responses: {
      200: jsonAnswer(
        'The job.',
        v.strictObject({ success: v.literal(true), job: s.JobStatus }),
        bothLanguages((x) => ({
          success: true,
          job: { ...common(x), status: 'completed', processingTime: 252_000, pagesProcessed: x.pages.length, createdAt: at, updatedAt: done, completedAt: done, hasFullText: false },
        })),
      ),
      403: ocrErrorAnswer('`Unauthorized to view this job`: another user’s job, or another job’s credential.'),
      404: ocrErrorAnswer('`Job not found`.'),
      500: ocrErrorAnswer(`\`${statusFailed}\`.`),
    },
  },
  'GET /ocr/text/{jobId}': {
    tag: 'OCR jobs',
    summary: 'Read a job’s whole text',
    failure: textFailed,
    description: 'The creator, editors and admins. Every page, unpaginated, in page order; the status is not checked, so the text may be empty or partial while the job runs.',
    params: jobPath,
    responses: {
      200: jsonAnswer(
        'The text.',
        v.strictObject({ success: v.literal(true), data: s.JobText }),
        bothLanguages((x) => ({
          success: true,
          data: {
            ...common(x),
            extractedText: x.pages.join('\n\n'),
            pages: x.pages.map((text, i) => ({ _id: `6a1f0c9e2b7d4e5f8a3b2c1${i}`, pageNumber: i + 1, text, storageKey: null, isAIGenerated: true, ...sampleReading(text, i) })),
            status: 'completed',
            completedAt: done,
          },
        })),
      ),
      303: handedOverAnswer,
      403: ocrErrorAnswer('`Unauthorized to view this text`: another user’s job.'),
      404: ocrErrorAnswer('`Text not found`: no such job.'),
      500: ocrErrorAnswer(`\`${textFailed}\`: storage or retrieval failed.`),
    },
  },
  'GET /ocr/jobs': {
    tag: 'OCR jobs',
    summary: 'List the caller’s jobs',
    failure: jobsFailed,
    description: `Always the caller’s own jobs (editors and admins too), newest first. \`total\` is counted within the listing window (${maxOffset} + the page).`,
    // Status first: it was checked before the paging values.
    query: v.object({
      status: queryOneOf('status', ocrStatuses, `Only jobs in this state: one of ${statusList} (400 otherwise).`),
      limit: listLimit,
      offset: listOffset,
    }),
    responses: {
      200: jsonAnswer(
        'One page of jobs.',
        v.strictObject({ success: v.literal(true), total: v.number(), limit: v.number(), offset: v.number(), jobs: v.array(s.JobListItem) }),
        bothLanguages((x) => ({
          success: true,
          total: 2,
          limit: 20,
          offset: 0,
          jobs: [
            {
              ...common(x),
              jobId: '5d2e8a1b-7c3f-4b6a-9e1d-2f4a6b8c0d1e',
              bookTextId: '66f1c2a9e4b0a1b2c3d4e5f9',
              fileName: 'notes.pdf',
              status: 'failed',
              tags: [],
              categories: [],
              pageCount: 0,
              processingTime: null,
              pagesProcessed: 0,
              error: 'The file is not a PDF or an image this service reads (PNG, JPEG, TIFF, WebP, GIF, BMP).',
              createdAt: done,
              updatedAt: done,
              completedAt: null,
            },
            {
              ...common(x),
              bookTextId: ids.bookTextId,
              status: 'completed',
              tags: x.tags,
              categories: x.categories,
              processingTime: 252_000,
              pagesProcessed: x.pages.length,
              createdAt: at,
              updatedAt: done,
              completedAt: done,
            },
          ],
        })),
      ),
      400: badRequestAnswer(`\`status must be one of ${statusList}\`; \`offset must be at most ${maxOffset}\``),
      500: ocrErrorAnswer(`\`${jobsFailed}\`.`),
    },
  },
  'GET /ocr/books': {
    tag: 'Digitized books',
    summary: 'List digitized books',
    failure: booksFailed,
    description:
      'Anonymous callers see public books, members public books and their own, editors and admins all. `userEmail` and `metadata` only on the caller’s own books (on all for editors and admins). Every `total` is exact; filtered and deeper listings come from the search index, which has a new book or a tag change a second or two after it is written (docs/data-model.md, "The catalogue").',
    query: v.object({
      limit: listLimit,
      offset: listOffset,
      status: queryText(`One of ${statusList}; any other value matches no book (an empty list, total 0).`),
      language: queryText('Only books in this language.'),
      sort: queryChoice(catalogueSorts, defaultCatalogueSort, `The order; any other value reads as \`${defaultCatalogueSort}\`.`),
      tags: filterList('tags', 'Books with any of these tags: comma-separated or repeated.'),
      categories: filterList('categories', 'Books in any of these categories: comma-separated or repeated.'),
    }),
    responses: {
      200: jsonAnswer(
        'One page of books.',
        v.strictObject({ success: v.literal(true), total: v.number(), limit: v.number(), offset: v.number(), books: v.array(s.BookListItem) }),
        bothLanguages((x) => ({ success: true, total: 1, limit: 20, offset: 0, books: [listItem(x)] })),
      ),
      400: badRequestAnswer(`\`offset must be at most ${maxOffset}\``),
      500: ocrErrorAnswer(`\`${booksFailed}\`.`),
    },
  },
  'GET /ocr/books/{bookTextId}': {
    tag: 'Digitized books',
    summary: 'Read a digitized book',
    failure: bookFailed,
    description:
      'Public books are readable by anyone, private ones by the owner, editors and admins. `userEmail`, `storageKey` and `metadata` only for the owner, editors and admins. One window of pages, in page order (or the least confident first: `pageOrder=confidence`), each with a signed image URL, the engine’s confidence and its uncertain words. A malformed id is a 500 (docs/SPEC.md 7).',
    params: v.object({ bookTextId: pathId('The BookText’s ObjectId.') }),
    query: v.object({
      pageLimit: queryNumber('pageLimit', {
        fallback: defaultPageLimit,
        min: 1,
        max: maxPageLimit,
        over: 'clamp',
        description: `Pages in the window: a whole number, at most ${maxPageLimit} (larger values read as ${maxPageLimit}); anything else reads as ${defaultPageLimit}.`,
      }),
      pageOffset: queryOffset('pageOffset', `Pages to skip: a whole number, at most ${maxOffset} (400 past it); anything else reads as 0.`),
      includeText: queryFlag('Only the value `true` returns `extractedText`; any other value omits it.'),
      pageOrder: queryChoice(
        pageOrders,
        defaultPageOrder,
        `Not in docs/SPEC.md (docs/interface.md, "Confidence"): \`confidence\` shows the least confident pages first (pages without a confidence last, ties in page order), so a proofreader starts where the engine was least sure; \`pageOffset\` and \`pageLimit\` page through that order. Any other value reads as \`${defaultPageOrder}\` (page order).`,
      ),
    }),
    responses: {
      200: jsonAnswer('The book.', v.strictObject({ success: v.literal(true), book: s.BookTextView }), bothLanguages((x) => ({ success: true, book: bookView(x) }))),
      303: handedOverAnswer,
      400: badRequestAnswer(`\`pageOffset must be at most ${maxOffset}\``),
      403: ocrErrorAnswer('`Unauthorized to view this book`: a private book of another user.'),
      404: ocrErrorAnswer('`Book not found`.'),
      500: ocrErrorAnswer(`\`${bookFailed}\`: a malformed id (\`Invalid bookText id: <id>\`), or storage or retrieval failed.`),
    },
  },
  'PATCH /ocr/books/{bookTextId}': {
    tag: 'Digitized books',
    summary: 'Edit a digitized book',
    failure: editFailed,
    description:
      'The owner, editors and admins. Every field is optional; only those sent change. The body is checked whole before anything is written: a malformed field is the 500 with the reason (the spec lists no 400 here); past a cap, a 400 (docs/decisions.md, "`PATCH /ocr/books/:bookTextId`"). A malformed id is a 500 (docs/SPEC.md 7).',
    params: v.object({ bookTextId: pathId('The BookText’s ObjectId.') }),
    body: {
      kind: 'json',
      schema: bookEdit,
      invalid: editRefusal,
      limits: bookBodyLimits,
      examples: {
        english: { summary: 'Rename, publish and correct a page', value: { fileName: 'The Forty Hadith (annotated)', visibility: 'public', tags: 'hadith, ethics', pages: { 1: { text: 'Actions are judged by intentions.' } } } },
        arabic: {
          summary: 'تصحيح العنوان والصفحات',
          value: { fileName: 'الأربعون النووية مع الشرح', author: 'الإمام النووي', tags: ['حديث', 'شرح'], pages: [{ pageNumber: 1, text: 'إنما الأعمال بالنيات.' }] },
        },
      },
    },
    responses: {
      200: jsonAnswer(
        'The book as edited.',
        v.strictObject({ success: v.literal(true), message: v.string(), book: s.EditedBook }),
        bothLanguages((x) => ({
          success: true,
          message: bookUpdated,
          book: {
            bookTextId: ids.bookTextId,
            jobId: ids.jobId,
            fileId: ids.fileId,
            fileName: x.fileName,
            author: x.author,
            visibility: 'public',
            language: x.language,
            tags: x.tags,
            categories: x.categories,
            pageCount: x.pages.length,
            status: 'completed',
            createdAt: at,
            updatedAt: '2026-11-24T08:00:00.000Z',
          },
        })),
      ),
      400: badRequestAnswer(`Past a cap: more than ${maxPagesPerRequest} pages, a page number over ${maxPageNumber}, a page text over ${maxPageTextLength} characters`),
      403: ocrErrorAnswer('`Unauthorized to update this book`.'),
      404: ocrErrorAnswer('`Book not found`.'),
      500: ocrErrorAnswer(`\`${editFailed}\`: a malformed id or field (the reason in \`error\`, e.g. \`tags must be an array of strings or a comma-separated string\`), or saving failed.`),
    },
  },
  'POST /ocr/books/{bookTextId}/pages/{pageNumber}/reread': {
    tag: 'Digitized books',
    summary: 'Read a page again',
    failure: rereadFailed,
    description:
      'Not in docs/SPEC.md (docs/interface.md, "Reading a page again"): the OCR worker reads this page of the book’s uploaded file again, by OCR, with the language and layout asked for, and posts it through the page callback, which replaces the page (its text, confidence and uncertain words) and nothing else. Answers 202 at once. The owner, editors and admins; a completed book’s pages 1 to its page count. Free: no page credit is taken (docs/decisions.md, "rereads are free"). Asked again while the page’s reread is pending, it answers the pending one (same `rereadId`) and sends nothing. A malformed id is a 500 (docs/SPEC.md 7).',
    params: v.object({ bookTextId: pathId('The BookText’s ObjectId.'), pageNumber: pathId('The page’s number, from 1.') }),
    body: {
      kind: 'json',
      schema: rereadRequest,
      invalid: 400,
      examples: {
        layout: { summary: 'One block of text', value: { layout: 'single-block' } },
        language: { summary: 'An English page in an Arabic book', value: { language: 'en' } },
      },
    },
    responses: {
      202: jsonAnswer(
        'The page will be read again.',
        v.strictObject({
          success: v.literal(true),
          message: v.string(),
          bookTextId: v.string(),
          pageNumber: v.number(),
          rereadId: v.pipe(v.string(), v.description('The pending reread: the same for a request repeated while it is pending.')),
          requestedAt: v.pipe(v.string(), v.description('When the pending reread was asked for.')),
        }),
        { queued: { summary: 'Queued', value: { success: true, message: rereadQueued, bookTextId: ids.bookTextId, pageNumber: 3, rereadId: '9b2f6a1e-4c3d-4e8f-a7b6-5c4d3e2f1a0b', requestedAt: at } } },
      ),
      400: badRequestAnswer(`\`${pagePathRefused}\`; \`${notRereadable}\`; \`${noSourceFile}\` (a book no upload made); a \`layout\` other than ${rereadLayouts.join(' or ')}; a \`language\` that is empty or too long`),
      403: ocrErrorAnswer('`Unauthorized to read this book again`: not the owner, an editor or an admin.'),
      404: ocrErrorAnswer(`\`Book not found\`; \`${pageNotFound}\`: a page number under 1 or past the book’s page count.`),
      500: ocrErrorAnswer(`\`${rereadFailed}\`: a malformed id (\`Invalid bookText id: <id>\`), or queueing failed (nothing is pending then).`),
    },
  },
  'POST /ocr/books/{bookTextId}/import': {
    tag: 'Digitized books',
    summary: 'Import a digitized book as a Book',
    failure: importFailed,
    description:
      'One line per page (the page text in `arabic`); the new Book is the caller’s, private. The owner, editors and admins; members also need an active subscription on the import tier. All or nothing, and a retry answers the same Book (docs/decisions.md, "import"). A malformed id is a 500 (docs/SPEC.md 7).',
    params: v.object({ bookTextId: pathId('The BookText’s ObjectId.') }),
    responses: {
      201: jsonAnswer('The new Book.', v.strictObject({ success: v.literal(true), message: v.string(), bookId: v.string() }), {
        imported: { summary: 'Imported', value: { success: true, message: bookImported, bookId: '6a0c9e1f2b3d4e5f6a7b8c9d' } },
      }),
      400: badRequestAnswer('`No pages to import`; more pages or text than one import takes'),
      403: ocrErrorAnswer('`Unauthorized to import this book`; or no subscription on the import tier (`error: "subscription_required"`).'),
      404: ocrErrorAnswer('`Book not found`.'),
      500: ocrErrorAnswer(`\`${importFailed}\`: a malformed id, the subscription could not be verified (\`error: "subscription_check_failed"\`), or the import failed.`),
    },
  },
});
