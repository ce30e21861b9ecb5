import { dynamoOcrStores } from '../../lib/adapters/dynamo/ocr-stores.ts';
import { dynamoBookStore } from '../../lib/adapters/dynamo/books.ts';
import { dynamoUploadStore } from '../../lib/adapters/dynamo/uploads.ts';
import { requireSubscription } from '../../lib/ocr/access.ts';
import { readBookText } from '../../lib/ocr/pages/read.ts';
import { listCatalogue } from '../../lib/ocr/catalogue/listing.ts';
import { bookToEdit, editBookText } from '../../lib/ocr/pages/edit.ts';
import { requestReread } from '../../lib/ocr/pages/reread.ts';
import { importBook } from '../../lib/ocr/export/import.ts';
import { jobStatus, jobText, listJobs } from '../../lib/ocr/jobs/reads.ts';
import { createJobFromUpload, requestUpload } from '../../lib/ocr/jobs/presigned-upload.ts';
import { createJobFromForm, requireFile } from '../../lib/ocr/jobs/upload.ts';
import type { SearchEngine } from '../../lib/search/engine.ts';
import { once, onFirstUse } from '../../lib/lazy.ts';
import { deps as coreDeps } from '../_shared/deps.ts';
import { writePathIndex, writePathSearchEngine } from '../_shared/adapters/search.ts';
import { bucketObjects } from '../_shared/buckets.ts';
import { sqsQueueAt } from '../_shared/queues.ts';
import { ocrApiContracts } from './contract.ts';
import type { FormFieldsOf } from '../_shared/contract/contract.ts';
import { httpFunction, signedIn, type Request } from '../_shared/http/handler.ts';
import { parseMultipart } from '../_shared/http/multipart.ts';
import { readBody } from '../_shared/http/request-body.ts';
import { jobCredentialsOf } from '../_shared/job-credentials.ts';
import { json } from '../_shared/http/responses.ts';

/** `ocr-api` (docs/DESIGN.md section 1): uploads (multipart and presigned), jobs, and the digitized books but their export. */
const deps = once(() => {
  const core = coreDeps();
  const bucket = core.config.uploadsBucket;
  const stores = dynamoOcrStores(core.db);
  return {
    ...core,
    ...stores,
    // Uploads and edits are listed and searchable before they answer (read after write).
    index: writePathIndex(stores),
    uploads: bucketObjects(bucket),
    uploadsBucket: bucket,
    ocrQueue: sqsQueueAt(core.config.ocrQueueUrl),
    pendingUploads: dynamoUploadStore(core.db),
    // Issued with each job (its message carries it), and checked on the job's status (the worker asks it).
    jobCredentials: jobCredentialsOf(core.config),
    books: dynamoBookStore(core.db),
    // Filtered and deeper catalogue listings (lib/ocr/catalogue/listing.ts): the search index's listing.
    listing: onFirstUse<SearchEngine>(writePathSearchEngine),
  };
});

/** `POST /ocr`: the subscription before the form is read (docs/SPEC.md 4.1), then the domain. */
async function uploadMultipart(request: Request) {
  const user = signedIn(request);
  const gate = await requireSubscription(deps().subscriptions, user);
  const form = await parseMultipart(request.rawBody, request.headers['content-type']);
  // The file first (no file is the spec's 400), then the form's fields as the contract reads them.
  const file = requireFile(form.file);
  const fields = readBody(ocrApiContracts['POST /ocr'].body, form.fields) as FormFieldsOf<(typeof ocrApiContracts)['POST /ocr']>;
  return json(201, await createJobFromForm(deps(), user, gate, file, fields));
}

export const handler = httpFunction({
  name: 'ocr-api',
  authDeps: deps,
  contracts: ocrApiContracts,
  handlers: {
    'POST /ocr': {
      run: uploadMultipart,
    },
    'POST /ocr/uploads': {
      run: async (request) => {
        const user = signedIn(request);
        await requireSubscription(deps().subscriptions, user);
        return json(201, await requestUpload(deps(), user, request.body()));
      },
    },
    'POST /ocr/uploads/{uploadId}/job': {
      run: async (request) => {
        const user = signedIn(request);
        const gate = await requireSubscription(deps().subscriptions, user);
        const fields = request.body();
        return json(201, await createJobFromUpload(deps(), user, request.params.uploadId ?? '', fields, gate));
      },
    },
    'GET /ocr/status/{jobId}': {
      run: (request) => jobStatus(deps(), request.caller.kind === 'job' ? { grant: request.caller.grant } : signedIn(request), request.params.jobId ?? ''),
    },
    'GET /ocr/text/{jobId}': {
      run: (request) => jobText(deps(), signedIn(request), request.params.jobId ?? ''),
    },
    'GET /ocr/jobs': {
      run: (request) => listJobs(deps(), signedIn(request), request.query),
    },
    'GET /ocr/books': {
      run: (request) => listCatalogue(deps(), request.caller, request.query),
    },
    'GET /ocr/books/{bookTextId}': {
      run: (request) => readBookText(deps(), request.caller, request.params.bookTextId, request.query),
    },
    'PATCH /ocr/books/{bookTextId}': {
      // Who may edit the book is checked before its edit is read (docs/SPEC.md's order: 404 and 403 first).
      run: async (request) => editBookText(deps(), await bookToEdit(deps(), signedIn(request), request.params.bookTextId), request.body()),
    },
    'POST /ocr/books/{bookTextId}/pages/{pageNumber}/reread': {
      run: async (request) =>
        json(202, await requestReread(deps(), signedIn(request), request.params.bookTextId, request.params.pageNumber, request.body())),
    },
    'POST /ocr/books/{bookTextId}/import': {
      run: async (request) => json(201, await importBook(deps(), signedIn(request), request.params.bookTextId)),
    },
  },
});
