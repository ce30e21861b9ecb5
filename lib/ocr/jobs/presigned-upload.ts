import type { User } from '../../auth/users.ts';
import { badRequest, forbidden, notFound, tooManyRequests } from '../../errors.ts';
import { isObjectId, newJobId, newObjectId } from '../../ids.ts';
import type { Gate } from '../access.ts';
import { createJob, JobNotQueued, snapshotForUpload, type CreatedJob, type UploadDeps } from './upload.ts';
import type { JobFields } from './fields.ts';
import { incomingUploadKey, uploadKey } from './fields.ts';
import { maxOpenUploads, unclaimedUploadSeconds, uploadRejection, UploadRejected } from './upload-rules.ts';
import type { Objects } from '../../objects.ts';
import { logger } from '../../log.ts';

/**
 * Large files (docs/DESIGN.md section 6): API Gateway and Lambda cap a request near 6 MB, so a client
 * asks for an upload, sends the file straight to the bucket with a presigned POST, then creates
 * the job from it. The POST policy fixes the size and type; the server checks both again on the
 * stored object, since the local S3 stand-in does not enforce policies. The POST can be sent again
 * until it expires, so the job never reads the key it writes (`incoming/`): creating the job copies
 * the checked bytes to the job's own key (docs/interface.md, "Large files: the presigned upload").
 */
export interface PendingUpload {
  uploadId: string;
  userId: string;
  storageKey: string;
  fileName: string;
  fileType: string;
  fileSize: number;
  createdAt: string;
  expiresAt: string;
  /** Set once, when a job is created from the upload. */
  jobId: string | null;
}

export interface UploadStore {
  /** Saves a new upload, counted as open for its user; false, saving nothing, when the user already has `maxOpen`. */
  put(upload: PendingUpload, maxOpen: number): Promise<boolean>;
  /** The upload, unless missing or retired by the sweeper. */
  get(uploadId: string): Promise<PendingUpload | undefined>;
  /** Marks the upload used by `jobId` (no longer open); false when another job or the sweeper already took it. */
  claim(upload: PendingUpload, jobId: string, at: Date): Promise<boolean>;
  /** Undoes a claim whose job could not be created: open again. */
  release(upload: PendingUpload, jobId: string): Promise<void>;
  /** Up to `limit` uploads still unclaimed that were asked for before `before` (ISO time), oldest first. */
  unclaimedBefore(before: string, limit: number): Promise<PendingUpload[]>;
  /** Ends an unclaimed upload so no job can take it (its place is freed); false when a job took it first. */
  retire(upload: PendingUpload): Promise<boolean>;
  /** Deletes a retired upload's record. */
  remove(uploadId: string): Promise<void>;
}

export interface PresignDeps extends UploadDeps {
  pendingUploads: UploadStore;
}

/** A presigned POST lives this long. */
export const uploadUrlSeconds = 60 * 60;

/** `POST /ocr/uploads`'s body as read (functions/ocr-api/contract.ts): a name, a type (trimmed, lower case) and a whole size above 0. */
export interface UploadRequest {
  fileName: string;
  fileType: string;
  fileSize: number;
}

export async function requestUpload(deps: PresignDeps, user: User, { fileName, fileType, fileSize }: UploadRequest) {
  const rejection = uploadRejection(fileType, fileSize);
  if (rejection) throw new UploadRejected(rejection);

  const now = deps.now();
  const upload: PendingUpload = {
    uploadId: newObjectId(),
    userId: user.userId,
    storageKey: incomingUploadKey(fileName),
    fileName,
    fileType,
    fileSize,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + uploadUrlSeconds * 1000).toISOString(),
    jobId: null,
  };
  const post = await deps.uploads.presignPost(upload.storageKey, {
    contentType: fileType,
    minBytes: fileSize,
    maxBytes: fileSize,
    expiresInSeconds: uploadUrlSeconds,
  });
  if (!(await deps.pendingUploads.put(upload, maxOpenUploads))) {
    throw tooManyRequests(`You have ${maxOpenUploads} uploads not yet made into jobs: create a job from one, or wait a day until they are removed`);
  }
  return { uploadId: upload.uploadId, storageKey: upload.storageKey, expiresAt: upload.expiresAt, url: post.url, fields: post.fields };
}

/** Creates the job from a finished presigned upload: the same fields and 201 answer as `POST /ocr`. */
export async function createJobFromUpload(deps: PresignDeps, user: User, uploadId: string, fields: JobFields, gate: Gate): Promise<CreatedJob> {
  // Upload ids are ObjectIds we mint: anything else names no upload.
  const upload = isObjectId(uploadId) ? await deps.pendingUploads.get(uploadId) : undefined;
  if (!upload) throw notFound('Upload not found');
  if (upload.userId !== user.userId) throw forbidden('Unauthorized to use this upload');
  if (upload.jobId) throw badRequest(`This upload was already used for job ${upload.jobId}`);

  const stored = await deps.uploads.head(upload.storageKey);
  if (!stored) throw badRequest('The file has not been uploaded yet: POST it to the presigned URL first');
  const rejection = uploadRejection(stored.contentType ?? '', stored.size);
  if (rejection || stored.size !== upload.fileSize || stored.contentType !== upload.fileType) {
    await deps.uploads.delete(upload.storageKey).catch(() => undefined);
    throw new UploadRejected(rejection ?? `The uploaded file does not match the declared size and type (${upload.fileSize} bytes, ${upload.fileType})`);
  }

  const usageInfo = await snapshotForUpload(deps, user, gate);
  const jobId = newJobId();
  if (!(await deps.pendingUploads.claim(upload, jobId, deps.now()))) throw badRequest('This upload was already used for another job');
  // The job's file is a copy under a key no POST can write, made only if the object still has the
  // ETag of the check above: what the worker reads and the distribution serves is what was checked.
  const file = { storageKey: uploadKey(upload.fileName), originalName: upload.fileName, fileType: upload.fileType, fileSize: stored.size };
  let created: CreatedJob;
  try {
    if (!(await deps.uploads.copyIfUnchanged(upload.storageKey, file.storageKey, stored.eTag))) throw badRequest(changedAfterCheck);
    // A failed save removes the copy; the client's upload stays, so a retry needs no second upload.
    created = await createJob(deps, user, file, fields, usageInfo, { jobId, removeObjectOnFailure: true });
  } catch (error) {
    // A saved job keeps its upload (only its message is missing); anything else frees it for a retry.
    if (!(error instanceof JobNotQueued)) {
      await deps.pendingUploads.release(upload, jobId).catch(() => undefined);
      throw error;
    }
    await removeIncoming(deps, upload);
    throw error;
  }
  await removeIncoming(deps, upload);
  return created;
}

export const changedAfterCheck = 'The uploaded file changed while the job was being created: create the job again to have it checked anew';

/** The claimed upload's own object: a copy is the job's now. One stored again by the POST is removed by the bucket's lifecycle rule (infra/storage.ts). */
async function removeIncoming(deps: PresignDeps, upload: PendingUpload): Promise<void> {
  await deps.uploads.delete(upload.storageKey).catch((error: unknown) => logger.warn('Removing a claimed upload failed', { uploadId: upload.uploadId, error: error as Error }));
}

/** Uploads one sweep looks at, at most: a sweep runs in bounded time; the next one takes the rest. */
export const sweepBatch = 100;

/**
 * Removes uploads still unclaimed `unclaimedUploadSeconds` after they were asked for (docs/decisions.md,
 * "open presigned uploads"): the record is retired first, in a transaction with its user's count, so a job can no
 * longer take it; only then is the object deleted, and the record last. A sweep that stops part way
 * leaves a retired record, which the next sweep finishes.
 */
export async function sweepUploads(deps: { pendingUploads: UploadStore; uploads: Pick<Objects, 'delete'> }, now: Date, rounds = 10) {
  const before = new Date(now.getTime() - unclaimedUploadSeconds * 1000).toISOString();
  let removed = 0;
  for (let round = 0; round < rounds; round++) {
    const old = await deps.pendingUploads.unclaimedBefore(before, sweepBatch);
    for (const upload of old) {
      if (!(await deps.pendingUploads.retire(upload))) continue;
      await deps.uploads.delete(upload.storageKey);
      await deps.pendingUploads.remove(upload.uploadId);
      removed++;
    }
    if (old.length < sweepBatch) break;
  }
  if (removed) logger.info('Removed unclaimed uploads', { removed });
  return { removed };
}
