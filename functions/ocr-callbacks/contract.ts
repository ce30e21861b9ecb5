import * as v from 'valibot';
import { clientMetadata, isOcrStatus, maxClientMetadataBytes, ocrStatuses } from '../../lib/ocr/book-text.ts';
import { inlineTextLimit, previewLength } from '../../lib/ocr/text-storage.ts';
import { outsideGrant, resultSaved, type FinalResult, type PageResult } from '../../lib/ocr/jobs/callbacks.ts';
import { maxPageCount, maxPageNumber, maxPageTextLength, maxPagesPerRequest, maxUncertainRanges } from '../../lib/ocr/pages/page.ts';
import { uncertainProblem, uncertainRefused } from '../../lib/ocr/pages/uncertain.ts';
import { contracts, jsonAnswer, type Issue } from '../_shared/contract/contract.ts';
import { badRequestAnswer, bookBodyLimits, bothLanguages, ocrSchemas as s, pageNumberField, pageNumberNotWhole, pageTextField, sampleIds as ids, sampleReading, tooManyPages } from '../_shared/contract/ocr-shapes.ts';
import { anyId, ignoredUnless, isBoolean, isFiniteNumber, isPlainObject, isString, objectId, ocrErrorAnswer, requiredFields, uuid } from '../_shared/contract/shapes.ts';

/**
 * `ocr-callbacks` (docs/SPEC.md 4.1, state table 3.1): the OCR worker's reports, read by their schemas
 * in the spec's order of checks: the missing ids as one 400, then each field; a field of the wrong
 * type is ignored where the spec lets it be. A page report's refusals are all 400s; the final
 * result's malformed fields are the spec's validation 500 (its caps and missing ids the 400).
 * Malformed ids are the domain's to refuse, and only for a job it does not know (an orphan).
 */

const wholeNumber = v.pipe(v.number(uncertainRefused), v.integer(uncertainRefused), v.minValue(0, uncertainRefused));
const ids3 = {
  jobId: anyId(v.pipe(uuid, v.description('The job’s UUID.'))),
  fileId: anyId(v.pipe(objectId, v.description('Used only to create the BookText of a job the service does not know (an orphan).'))),
  userId: anyId(v.pipe(objectId, v.description('The job’s owner: usage is recorded against this user; an orphan’s owner.'))),
};
const pageNumber = v.pipe(pageNumberField, v.description(`0..${maxPageNumber}; a numeric string is accepted.`));
const isPageCount = (value: unknown) => isFiniteNumber(value) && Number.isInteger(value) && value >= 0 && value <= maxPageCount;
const pageCount = (description: string) =>
  ignoredUnless(isPageCount, v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(maxPageCount), v.description(`${description} A value that is not a whole number up to ${maxPageCount} is ignored.`)));
const pageFields = {
  text: ignoredUnless(isString, v.pipe(pageTextField, v.description('Default empty.'))),
  storageKey: ignoredUnless(isString, v.pipe(v.nullable(v.string()), v.description('The page image; default null.'))),
  isAIGenerated: ignoredUnless(isBoolean, v.boolean()),
};

const idNames = ['jobId', 'fileId', 'userId'] as const;

/** How sure the engine was (an addition: docs/interface.md, "Confidence"); out of range or malformed, the 400. */
const readingFields = {
  confidence: v.optional(
    v.nullable(v.pipe(v.number('confidence must be a number from 0 to 100, or null'), v.minValue(0, 'confidence must be from 0 to 100'), v.maxValue(100, 'confidence must be from 0 to 100'))),
    null,
  ),
  uncertain: v.optional(
    v.pipe(
      v.array(v.tuple([wholeNumber, wholeNumber], uncertainRefused), uncertainRefused),
      v.maxLength(maxUncertainRanges, `uncertain may list at most ${maxUncertainRanges} ranges`),
      v.description(
        `Words read with low confidence, to underline: \`[start, end)\` ranges of \`text\` (UTF-16 code units), ascending and apart, each within the text; at most ${maxUncertainRanges}.`,
      ),
    ),
  ),
};
/** The ranges lie within the page's text, in order and apart (checked once the page's text is read). */
const problemOf = (page: { text?: string; uncertain?: [number, number][] }) => uncertainProblem(page.uncertain ?? [], (page.text ?? '').length);
const rangesFitText = <T extends { text?: string; uncertain?: [number, number][] }>() =>
  v.check<T, (issue: v.CheckIssue<T>) => string>((page) => !problemOf(page), (issue) => problemOf(issue.input) ?? '');

const pageResult = v.pipe(
  v.looseObject({}),
  requiredFields(idNames),
  // docs/SPEC.md 4.1: "only undefined is rejected"; any other value is read as a page number.
  v.check((body) => body.pageNumber !== undefined, 'Missing required fields: pageNumber'),
  v.object({
    ...ids3,
    pageNumber,
    status: ignoredUnless(isString, v.pipe(v.string(), v.description('Only `failed`, with `error`, has an effect: the page error is recorded.'))),
    text: pageFields.text,
    error: ignoredUnless(isString, v.string()),
    storageKey: pageFields.storageKey,
    isAIGenerated: pageFields.isAIGenerated,
    pageCount: pageCount('Updates the book’s page count when not 0.'),
    pagesProcessed: ignoredUnless(isFiniteNumber, v.pipe(v.number(), v.description('Kept at the highest value reported.'))),
    ...readingFields,
    rereadId: v.optional(
      v.pipe(
        v.string('rereadId must be a string'),
        v.minLength(1, 'rereadId must not be empty'),
        v.maxLength(64, 'rereadId must be at most 64 characters'),
        v.description(
          'Not in docs/SPEC.md (docs/interface.md, "Reading a page again"): the job message’s `reread.rereadId` when the page answers a reread. The page then replaces the stored page and nothing else changes (not the status); it is applied once, while that reread is pending, and a repeated post writes nothing. With `status: "failed"` the page stays as it was.',
        ),
      ),
    ),
  }),
  rangesFitText(),
) satisfies v.GenericSchema<unknown, PageResult>;

/** A page of the final result: its number is required (missing, it is not a whole number). */
const resultPage = v.pipe(
  v.object(
    {
      pageNumber,
      text: ignoredUnless(isString, pageTextField),
      storageKey: ignoredUnless(isString, v.nullable(v.string())),
      isAIGenerated: pageFields.isAIGenerated,
      ...readingFields,
    },
    pageNumberNotWhole,
  ),
  rangesFitText(),
);
const pagesNotObjects = 'pages must be an array of objects';
/** Absent when null, as when not sent. */
const nullAbsent = <S extends v.GenericSchema>(schema: S) =>
  v.optional(v.pipe(v.unknown(), v.transform((value) => (value === null ? undefined : value) as v.InferInput<S> | undefined), v.optional(schema)));

const finalResult = v.pipe(
  v.looseObject({}),
  requiredFields(idNames),
  v.check((body) => body.status === undefined || isOcrStatus(body.status), (issue) => `Invalid status: ${String((issue.input as Record<string, unknown>).status)}`),
  v.object({
    ...ids3,
    extractedText: ignoredUnless(
      isString,
      v.pipe(
        v.string(),
        v.description(
          `The whole text; over ${inlineTextLimit.toLocaleString('en-US')} characters it goes to object storage with a ${previewLength.toLocaleString('en-US')}-character preview in the record.`,
        ),
      ),
    ),
    language: ignoredUnless((value) => isString(value) && value !== '', v.pipe(v.string(), v.description('Keeps the stored value when absent.'))),
    pageCount: pageCount('Keeps the stored value when absent.'),
    pages: nullAbsent(
      v.pipe(
        // Whether each is an object (the 500) before how many there are (the 400), then each page in order.
        v.array(v.unknown(), pagesNotObjects),
        // An array item counts as an object here (it then has no page number).
        v.check((pages) => pages.every((page) => typeof page === 'object' && page !== null), pagesNotObjects),
        v.maxLength(maxPagesPerRequest, tooManyPages),
        v.array(resultPage),
        v.maxLength(maxPagesPerRequest),
        v.description('Upserted by page number; absent fields take the defaults (isAIGenerated true).'),
      ),
    ),
    metadata: nullAbsent(
      v.pipe(
        v.custom<Record<string, unknown>>(isPlainObject, 'metadata must be an object'),
        v.record(v.string(), v.unknown()),
        // The service's own keys dropped; past the size a 400.
        v.rawTransform(({ dataset, addIssue, NEVER }) => {
          try {
            return clientMetadata(dataset.value, (message) => new Error(message));
          } catch (error) {
            addIssue({ message: (error as Error).message });
            return NEVER;
          }
        }),
        v.description(
          `Merged into the metadata only with \`extractedText\`; otherwise an orphan’s initial metadata. The service’s own keys are dropped; at most ${maxClientMetadataBytes.toLocaleString('en-US')} bytes of JSON.`,
        ),
      ),
    ),
    status: v.optional(v.picklist(ocrStatuses)),
    error: ignoredUnless(isString, v.pipe(v.string(), v.description('A job-level error.'))),
    processingTime: ignoredUnless(isFiniteNumber, v.pipe(v.number(), v.description('Milliseconds.'))),
  }),
) satisfies v.GenericSchema<unknown, FinalResult>;

/** The final result's refusals: a missing id or a cap is the 400, a malformed field the spec's validation 500. */
const finalResultRefusal = (issue: Issue) => (['raw_check', 'max_length', 'max_value', 'raw_transform'].includes(issue.type) ? 400 : 500);

/** One page's text, escaped at worst six bytes a letter (`\uXXXX`), and the rest of its fields; it may come compressed. */
const pageResultLimits = { maxBytes: maxPageTextLength * 6 + 64 * 1024, compressed: true };

const pagesOf = (texts: readonly string[]) => texts.map((text, i) => ({ pageNumber: i + 1, text, storageKey: `ocr-pages/${ids.jobId}/page-${i + 1}.png`, isAIGenerated: true }));
const worker = { jobId: ids.jobId, fileId: ids.fileId, userId: ids.userId };
const orphanIds = 'A job the service does not know creates its BookText, only with a UUID `jobId` and ObjectId `fileId` and `userId` (else the 500 `jobId must be a UUID` or `<name> must be an ObjectId`).';

/** A job credential (docs/ocr-worker.md, "Connecting an OCR worker") used beyond its job: not in docs/SPEC.md, an addition. */
const outsideGrantAnswer = ocrErrorAnswer(
  `\`${outsideGrant}\`: called with a job credential (the job message's \`credential\`, in place of an editor's token) for another job, another owner or file, or a page number or count past its cap.`,
);

/** Each route's 500 text (its contract's `failure`). */
const pageResultFailed = 'Error processing page result';
const resultFailed = 'Error saving OCR result';

export const ocrCallbackContracts = contracts({
  'POST /ocr/result/page': {
    tag: 'OCR worker callbacks',
    summary: 'Report one page',
    failure: pageResultFailed,
    description: `Upserts the page by (book, page number) and moves the job to \`processing\`; no usage is recorded. ${orphanIds}`,
    body: {
      kind: 'json',
      schema: pageResult,
      invalid: 400,
      required: true,
      limits: pageResultLimits,
      examples: bothLanguages((x) => ({
        ...worker,
        pageNumber: 1,
        text: x.pages[0],
        storageKey: `ocr-pages/${ids.jobId}/page-1.png`,
        pageCount: x.pages.length,
        pagesProcessed: 1,
        ...sampleReading(x.pages[0], 0),
      })),
    },
    responses: {
      200: jsonAnswer('Recorded.', v.strictObject({ success: v.literal(true) }), { recorded: { summary: 'Recorded', value: { success: true } } }),
      400: badRequestAnswer(
        `\`Missing required fields: <names>\` (jobId, fileId, userId, then pageNumber); a page number that is not a whole number of 0 or more, or over ${maxPageNumber}; a text over ${maxPageTextLength} characters; a \`confidence\` that is not a number from 0 to 100 or null; \`uncertain\` that is not whole-number pairs within the text, in order and apart, or lists more than ${maxUncertainRanges}`,
      ),
      403: outsideGrantAnswer,
      500: ocrErrorAnswer(`\`${pageResultFailed}\`: an orphan’s malformed ids, or saving failed.`),
    },
  },
  'POST /ocr/result': {
    tag: 'OCR worker callbacks',
    summary: 'Report the final result',
    failure: resultFailed,
    description: `Writes the text, pages and status the worker sends; fields not sent keep their values. On \`completed\` with pages, the job’s usage is recorded once (docs/decisions.md, "usage on completion"); a failure to record it is \`usageInfo: null\`, never a failed call. A body over a megabyte may be sent compressed (\`Content-Encoding: br\` or \`gzip\`). Nothing is written unless the whole body is valid. ${orphanIds}`,
    body: {
      kind: 'json',
      schema: finalResult,
      invalid: finalResultRefusal,
      required: true,
      limits: bookBodyLimits,
      examples: bothLanguages((x) => ({
        ...worker,
        status: 'completed',
        extractedText: x.pages.join('\n\n'),
        language: x.language,
        pageCount: x.pages.length,
        pages: pagesOf(x.pages),
        processingTime: 252_000,
        metadata: { engine: 'tesseract' },
      })),
    },
    responses: {
      201: jsonAnswer(
        'Saved.',
        v.strictObject({ message: v.string(), bookTextId: objectId, status: s.OcrStatus, usageInfo: v.nullable(s.UsageInfo) }),
        bothLanguages((x) => ({
          message: resultSaved,
          bookTextId: ids.bookTextId,
          status: 'completed',
          usageInfo: { freePages: x.pages.length, overagePages: 0, overageChargeCents: 0, totalPagesUsed: 14, remainingCredits: 86, paymentStatus: 'not_required' },
        })),
      ),
      400: badRequestAnswer(
        `\`Missing required fields: <names>\` (jobId, fileId, userId); more than ${maxPagesPerRequest} pages, a page number over ${maxPageNumber} or a text over ${maxPageTextLength} characters; \`metadata\` over ${maxClientMetadataBytes.toLocaleString('en-US')} bytes of JSON`,
      ),
      403: outsideGrantAnswer,
      500: ocrErrorAnswer(
        `\`${resultFailed}\`: a malformed field (a status outside the five, \`pages\` not an array of objects with whole page numbers, \`metadata\` not an object; the reason in \`error\`), an orphan’s malformed ids, or saving failed.`,
      ),
    },
  },
});
