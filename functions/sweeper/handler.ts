import middy from '@middy/core';
import { dynamoBookStore } from '../../lib/adapters/dynamo/books.ts';
import { dynamoUploadStore } from '../../lib/adapters/dynamo/uploads.ts';
import { sweepImports } from '../../lib/ocr/export/import.ts';
import { sweepUploads } from '../../lib/ocr/jobs/presigned-upload.ts';
import { sweepHalfSavedWrites } from '../../lib/ocr/loose-texts.ts';
import { dynamoOcrStores } from '../../lib/adapters/dynamo/ocr-stores.ts';
import { once } from '../../lib/lazy.ts';
import { deps as coreDeps } from '../_shared/deps.ts';
import { bucketObjects } from '../_shared/buckets.ts';
import { observed } from '../_shared/observability.ts';
import { requeueStalledJobs } from '../_shared/stalled-jobs.ts';

/**
 * `sweeper` (issue 12): run on a schedule (the stack's rule; `npm start` runs it on an interval).
 * Removes presigned uploads never made into jobs a day after they were asked for, object and record,
 * and the lines of imports abandoned part way a day after their last start; sends stalled jobs to
 * their queue again (functions/_shared/stalled-jobs.ts); undoes page edits left part way and removes text
 * objects no record names (lib/ocr/loose-texts.ts).
 */
const deps = once(() => {
  const core = coreDeps();
  return {
    now: core.now,
    pendingUploads: dynamoUploadStore(core.db),
    uploads: bucketObjects(core.config.uploadsBucket),
    books: dynamoBookStore(core.db),
    ...dynamoOcrStores(core.db),
  };
});

export async function sweep(now = deps().now()) {
  const [uploads, imports, stalled, halfSaved] = await Promise.all([
    sweepUploads(deps(), now),
    sweepImports(deps(), now),
    requeueStalledJobs(now),
    sweepHalfSavedWrites(deps(), now),
  ]);
  return { uploadsRemoved: uploads.removed, importsRemoved: imports.removed, ...stalled, ...halfSaved };
}

export const handler = middy<unknown, Awaited<ReturnType<typeof sweep>>>()
  .use(observed('sweeper'))
  .handler(() => sweep());
