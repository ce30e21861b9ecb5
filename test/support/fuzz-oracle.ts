import { isObjectId } from '../../lib/ids.ts';
import type { RawResponse } from './raw-http.ts';

/**
 * What the fuzz of the route table (test/http/fuzz.test.ts) accepts as an answer: no text of ours
 * that only we should see (stack traces, file paths, the SDK's and providers' words), and no 5xx
 * but the ones docs/SPEC.md (or a record of docs/decisions.md where it leaves a choice to us) states for that route and input.
 */

/** Text that only the logs may carry. A marker the request itself contained is an echo, not a leak. */
const leakMarkers: { name: string; pattern: RegExp }[] = [
  { name: 'stack trace', pattern: /\n\s+at \S|\bat \S+ \(\S+:\d+:\d+\)/ },
  { name: 'error with a path', pattern: /\w*Error: [^"\n]*(\/[\w.-]+){2,}/ },
  { name: 'file path', pattern: /\/work\/|\/var\/task|node_modules|\.[cm]?[jt]s:\d|file:\/\// },
  { name: 'ARN or AWS host', pattern: /arn:aws|amazonaws/ },
  {
    name: 'SDK or provider text',
    pattern:
      /AccessDenied|\w*Exception|ResourceNotFound|ConditionalCheckFailed|TransactionCanceled|ProvisionedThroughput|Dynamo|\bS3\b|NoSuchKey|NoSuchBucket|ECONNREFUSED|ECONNRESET|ETIMEDOUT|\bSQS\b|Polly|\$metadata|httpStatusCode|StripeError|stripe\.com/,
  },
  { name: 'JavaScript error', pattern: /TypeError|RangeError|SyntaxError|ReferenceError|URIError|Cannot read propert|is not a function|undefined is not|Maximum call stack/ },
];

export function leaks(response: RawResponse, requestText: string): string[] {
  // Audio and Word documents are bytes, not text a message could hide in.
  if (/^(audio\/|application\/vnd\.openxmlformats)/.test(response.contentType)) return [];
  return leakMarkers.flatMap(({ name, pattern }) => {
    const found = pattern.exec(response.text)?.[0];
    return found && !requestText.includes(found.trim()) ? [`${name} (${JSON.stringify(found)})`] : [];
  });
}

/** The request as the route saw it: the route the server matched, its decoded parameters, and the body's kind. */
export interface Seen {
  params: Record<string, string>;
  contentType: string;
}

/** An allowed 500: why (the docs/SPEC.md section or docs/decisions.md record), and whether this request and answer are that case. */
export interface Allowance {
  why: string;
  applies(seen: Seen, response: RawResponse): boolean;
}

const parse = (text: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
};

/** The detail of a 500 body in each group's shape (docs/decisions.md "500 bodies", "OCR error bodies", "audio error bodies"). */
const detail = {
  ocr: (r: RawResponse) => {
    const b = parse(r.text);
    return b?.success === false && typeof b.message === 'string' ? b.error : undefined;
  },
  audio: (r: RawResponse) => {
    const b = parse(r.text);
    return typeof b?.error === 'string' ? b.details : undefined;
  },
  notifications: (r: RawResponse) => {
    const b = parse(r.text);
    return typeof b?.message === 'string' ? b.error : undefined;
  },
};

type Group = keyof typeof detail;
const matches = (value: unknown, pattern: RegExp) => typeof value === 'string' && pattern.test(value);

/** The id kinds of path parameters, as the service names them in `Invalid <kind> id: <id>`. */
const idKinds: Record<string, string> = { bookTextId: 'bookText', bookId: 'book', lineId: 'line', jobId: 'job', id: 'notification' };

/** A path id that is not an ObjectId, answered 500 with our own `Invalid <kind> id` detail. */
const malformedId = (group: Group, why: string): Allowance => ({
  why,
  applies: (seen, response) =>
    Object.entries(seen.params).some(
      ([name, value]) => idKinds[name] !== undefined && !isObjectId(value) && matches(detail[group](response), new RegExp(`^Invalid ${idKinds[name]} id: `)),
    ),
});

const multipart = (seen: Seen) => /^multipart\/form-data/i.test(seen.contentType);
const json = (seen: Seen) => /^application\/(.+\+)?json\b/i.test(seen.contentType);
const refusedFile = /^(Invalid file type: |File too large: |Unexpected field: |Field (name|value) too long: |The uploaded file does not match )/;
const plainTextRefusal = (response: RawResponse) => /^text\/plain/.test(response.contentType) && refusedFile.test(response.text);
const invalidJobMetadata = /^Invalid jobMetadata: must be a JSON object$/;

const ocrBookId = malformedId('ocr', 'docs/SPEC.md 7: "Malformed ObjectId values in OCR book paths produce 500" (and 4.1 GET /ocr/books/:bookTextId); docs/decisions.md "malformed `bookTextId`"');
/** docs/SPEC.md 4.2 states the malformed-id 500 for generate, GET /audio/jobs/:jobId, batch and single field. */
const audioIdBySpec = malformedId('audio', 'docs/SPEC.md 4.2: 500 "includes malformed id" on this route');
/** The other audio routes list a bare 500; docs/decisions.md "malformed ids (audio)" makes a malformed id that 500 everywhere. */
const audioId = malformedId('audio', 'docs/SPEC.md 4.2 lists a 500 here; docs/decisions.md "malformed ids (audio)": a malformed id is that 500 on every audio route');

/** A callback for an unknown job whose ids cannot key an orphan BookText (docs/SPEC.md 4.1: jobId a UUID, fileId and userId ObjectIds). */
const orphanIds: Allowance = {
  why: 'docs/SPEC.md 4.1 POST /ocr/result: 500 on validation; POST /ocr/result/page: 500 processing failure; the ids are typed UUID and ObjectId',
  applies: (s, r) => json(s) && matches(detail.ocr(r), /^(jobId must be a UUID|fileId must be an ObjectId|userId must be an ObjectId)$/),
};

/** Per route key: the 500s docs/SPEC.md states for an input, each with where it says so. Routes not listed may never answer 5xx. */
export const allowed500: Record<string, Allowance[]> = {
  'POST /ocr': [
    { why: 'docs/SPEC.md 4.1 POST /ocr and 7: unsupported type or too large is a plain-text 500; docs/decisions.md "refused files"', applies: (s, r) => multipart(s) && plainTextRefusal(r) },
    { why: 'docs/SPEC.md 4.1 POST /ocr: invalid jobMetadata JSON is a 500; docs/decisions.md "upload fields"', applies: (s, r) => multipart(s) && matches(detail.ocr(r), invalidJobMetadata) },
  ],
  'POST /ocr/uploads': [
    { why: 'docs/interface.md "Large files: the presigned upload": the same type and size rules as POST /ocr (plain-text 500)', applies: (_s, r) => plainTextRefusal(r) },
  ],
  'POST /ocr/uploads/{uploadId}/job': [
    { why: 'docs/interface.md "Large files: the presigned upload": the same form fields as POST /ocr (invalid jobMetadata 500)', applies: (s, r) => json(s) && matches(detail.ocr(r), invalidJobMetadata) },
    { why: 'docs/interface.md "Large files: the presigned upload": a stored file that breaks the rules is refused like POST /ocr (plain-text 500)', applies: (_s, r) => plainTextRefusal(r) },
  ],
  'GET /ocr/books/{bookTextId}': [ocrBookId],
  // docs/interface.md "Search": one book's search answers a malformed id as GET /ocr/books/{bookTextId} does.
  'GET /ocr/books/{bookTextId}/search': [ocrBookId],
  'PATCH /ocr/books/{bookTextId}': [
    ocrBookId,
    { why: 'docs/decisions.md "`PATCH /ocr/books/:bookTextId`": a bad field is the 500 with the reason', applies: (s, r) => json(s) && matches(detail.ocr(r), / must be /) },
  ],
  'POST /ocr/books/{bookTextId}/import': [ocrBookId],
  // docs/interface.md "Reading a page again": a malformed id is the spec's 500, as on the other book routes.
  'POST /ocr/books/{bookTextId}/pages/{pageNumber}/reread': [ocrBookId],
  'GET /ocr/books/{bookTextId}/export/docx': [ocrBookId],
  'POST /ocr/result': [
    {
      why: 'docs/SPEC.md 4.1 POST /ocr/result: 500 on validation; docs/decisions.md "state moves": bad status, pages or metadata',
      applies: (s, r) => json(s) && matches(detail.ocr(r), /^(Invalid status: |pages must be |pages\[\d+\]\.pageNumber must be |metadata must be )/),
    },
    orphanIds,
  ],
  'POST /ocr/result/page': [orphanIds],
  'POST /audio/{bookId}/generate': [audioIdBySpec],
  'GET /audio/jobs/{jobId}': [audioIdBySpec],
  'GET /audio/{bookId}/lines-with-audio': [audioId],
  'POST /audio/{bookId}/lines/{lineId}/batch': [
    audioIdBySpec,
    { why: 'docs/SPEC.md 4.2 batch: 500 for fields not an array of strings', applies: (s, r) => json(s) && matches(detail.audio(r), /^fields must be an array of strings$/) },
  ],
  'POST /audio/{bookId}/lines/{lineId}/{field}': [
    audioIdBySpec,
    { why: 'docs/SPEC.md 4.2 single field: 500 for an empty field; docs/decisions.md "empty fields"', applies: (_s, r) => matches(detail.audio(r), /^The (arabic|english|commentary) text of this line is empty$/) },
  ],
  'GET /audio/{bookId}/lines/{lineId}/{field}/stream': [audioId],
  'GET /audio/{bookId}/lines/{lineId}/{field}/url': [audioId],
  'GET /audio/{bookId}/lines/{lineId}': [audioId],
  'DELETE /audio/{bookId}/lines/{lineId}/{field}': [audioId],
  'DELETE /audio/{bookId}/lines/{lineId}': [audioId],
  'DELETE /audio/{bookId}': [audioId],
  'GET /audio/{bookId}/all': [audioId],
  'PUT /notifications/{id}/read': [malformedId('notifications', 'docs/SPEC.md 7: 500 `Error marking notification as read` (also for malformed id)')],
};
