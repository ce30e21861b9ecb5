import { dynamoOcrStore } from '../lib/adapters/dynamo/book-texts.ts';
import { dynamoBookStore } from '../lib/adapters/dynamo/books.ts';
import { dynamoUploadStore } from '../lib/adapters/dynamo/uploads.ts';
import { badRequest } from '../lib/errors.ts';
import { parseJobFields, uploadKey } from '../lib/ocr/job-fields.ts';
import { readBook } from '../lib/ocr/books.ts';
import { listBooks } from '../lib/ocr/catalogue.ts';
import { editBook } from '../lib/ocr/edit.ts';
import { importBook } from '../lib/ocr/import.ts';
import { jobStatus, jobText, listJobs } from '../lib/ocr/jobs.ts';
import { createJobFromUpload, requestUpload } from '../lib/ocr/presigned-upload.ts';
import { createJob, jobCreationFailed, requireSubscription, snapshotForUpload } from '../lib/ocr/upload.ts';
import { UploadRejected } from '../lib/ocr/upload-rules.ts';
import type { Queue } from '../lib/queue.ts';
import { once, onFirstUse } from '../lib/lazy.ts';
import { deps as coreDeps } from './deps.ts';
import { bucketObjects } from './buckets.ts';
import { ocrApiContracts } from './api/ocr-api.ts';
import { httpFunction, signedIn, type Request } from './http/handler.ts';
import { parseMultipart } from './http/multipart.ts';
import { json, text } from './http/responses.ts';

/** `ocr-api` (DESIGN.md section 1): uploads (multipart and presigned), jobs, and the digitized books but their export. */
const deps = once(() => {
  const core = coreDeps();
  const bucket = core.config.uploadsBucket;
  return {
    ...core,
    ocr: dynamoOcrStore(core.db),
    uploads: bucketObjects(bucket),
    uploadsBucket: bucket,
    ocrQueue: onFirstUse<Queue>(async () => {
      const [{ sqsQueue }, { sqsClient }] = await Promise.all([import('../lib/adapters/sqs/queue.ts'), import('../lib/adapters/aws/sqs-client.ts')]);
      return sqsQueue(sqsClient(), core.config.ocrQueueUrl);
    }),
    pendingUploads: dynamoUploadStore(core.db),
    books: dynamoBookStore(core.db),
  };
});

/** The spec answers a refused file (type or size) with a plain-text 500, as its upload parser did. */
async function plainTextRejections(run: () => Promise<unknown>) {
  try {
    return await run();
  } catch (error) {
    if (error instanceof UploadRejected) return text(500, error.message);
    throw error;
  }
}

/** `POST /ocr`: subscription first, then the form; the file is stored before the records that point at it. */
async function uploadMultipart(request: Request) {
  const d = deps();
  const user = signedIn(request);
  const gate = await requireSubscription(d.subscriptions, user);
  const form = await parseMultipart(request.rawBody, request.headers['content-type']);
  if (!form.file) throw badRequest('No file uploaded');
  const fields = parseJobFields(form.fields);
  const usageInfo = await snapshotForUpload(d, user, gate);
  const stored = {
    storageKey: uploadKey(form.file.fileName),
    originalName: form.file.fileName,
    fileType: form.file.mimeType,
    fileSize: form.file.size,
  };
  await d.uploads.put(stored.storageKey, form.file.data, stored.fileType);
  return json(201, await createJob(d, user, stored, fields, usageInfo, { removeObjectOnFailure: true }));
}

export const handler = httpFunction({
  name: 'ocr-api',
  authDeps: deps,
  contracts: ocrApiContracts,
  handlers: {
    'POST /ocr': {
      failure: jobCreationFailed,
      run: (request) => plainTextRejections(() => uploadMultipart(request)),
    },
    'POST /ocr/uploads': {
      failure: 'Error creating upload',
      run: (request) =>
        plainTextRejections(async () => {
          const user = signedIn(request);
          await requireSubscription(deps().subscriptions, user);
          return json(201, await requestUpload(deps(), user, request.body));
        }),
    },
    'POST /ocr/uploads/{uploadId}/job': {
      failure: jobCreationFailed,
      run: (request) =>
        plainTextRejections(async () => {
          const user = signedIn(request);
          const gate = await requireSubscription(deps().subscriptions, user);
          const fields = parseJobFields(request.body);
          return json(201, await createJobFromUpload(deps(), user, request.params.uploadId ?? '', fields, gate));
        }),
    },
    'GET /ocr/status/{jobId}': {
      failure: 'Error fetching job status',
      run: (request) => jobStatus(deps(), signedIn(request), request.params.jobId ?? ''),
    },
    'GET /ocr/text/{jobId}': {
      failure: 'Error fetching text',
      run: (request) => jobText(deps(), signedIn(request), request.params.jobId ?? ''),
    },
    'GET /ocr/jobs': {
      failure: 'Error fetching jobs',
      run: (request) => listJobs(deps(), signedIn(request), request.query),
    },
    'GET /ocr/books': {
      failure: 'Error fetching books',
      run: (request) => listBooks(deps(), request.caller, request.query),
    },
    'GET /ocr/books/{bookTextId}': {
      failure: 'Error fetching book',
      run: (request) => readBook(deps(), request.caller, request.params.bookTextId, request.query),
    },
    'PATCH /ocr/books/{bookTextId}': {
      failure: 'Error updating book',
      run: (request) => editBook(deps(), signedIn(request), request.params.bookTextId, request.body),
    },
    'POST /ocr/books/{bookTextId}/import': {
      failure: 'Error importing book',
      run: async (request) => json(201, await importBook(deps(), signedIn(request), request.params.bookTextId)),
    },
  },
});
