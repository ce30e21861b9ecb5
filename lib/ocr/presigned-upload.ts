import type { User } from '../auth/users.ts';
import { badRequest, forbidden, notFound } from '../errors.ts';
import { isObjectId, newJobId, newObjectId } from '../ids.ts';
import { createJob, JobNotQueued, snapshotForUpload, type CreatedJob, type Gate, type UploadDeps } from './upload.ts';
import type { JobFields } from './job-fields.ts';
import { uploadKey } from './job-fields.ts';
import { uploadRejection, UploadRejected } from './upload-rules.ts';

/**
 * Large files (DESIGN.md section 6): API Gateway and Lambda cap a request near 6 MB, so a client
 * asks for an upload, sends the file straight to the bucket with a presigned POST, then creates
 * the job from it. The POST policy fixes the size and type; the server checks both again on the
 * stored object, since the local S3 stand-in does not enforce policies.
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
  put(upload: PendingUpload): Promise<void>;
  get(uploadId: string): Promise<PendingUpload | undefined>;
  /** Marks the upload used by `jobId`; false when another job already took it. */
  claim(uploadId: string, jobId: string): Promise<boolean>;
  /** Undoes a claim whose job could not be created. */
  release(uploadId: string, jobId: string): Promise<void>;
}

export interface PresignDeps extends UploadDeps {
  pendingUploads: UploadStore;
}

/** A presigned POST lives this long; the upload record is kept a day longer. */
export const uploadUrlSeconds = 60 * 60;

export async function requestUpload(deps: PresignDeps, user: User, body: Record<string, unknown>) {
  const fileName = typeof body.fileName === 'string' ? body.fileName.trim() : '';
  const fileType = typeof body.fileType === 'string' ? body.fileType.trim().toLowerCase() : '';
  const fileSize = body.fileSize;
  if (!fileName || !fileType || typeof fileSize !== 'number' || !Number.isInteger(fileSize) || fileSize < 1) {
    throw badRequest('fileName, fileType and fileSize (bytes, a whole number above 0) are required');
  }
  const rejection = uploadRejection(fileType, fileSize);
  if (rejection) throw new UploadRejected(rejection);

  const now = deps.now();
  const upload: PendingUpload = {
    uploadId: newObjectId(),
    userId: user.userId,
    storageKey: uploadKey(fileName),
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
  await deps.pendingUploads.put(upload);
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
  if (!(await deps.pendingUploads.claim(uploadId, jobId))) throw badRequest('This upload was already used for another job');
  const file = { storageKey: upload.storageKey, originalName: upload.fileName, fileType: upload.fileType, fileSize: stored.size };
  try {
    // The client's upload stays when saving fails, so a retry needs no second upload.
    return await createJob(deps, user, file, fields, usageInfo, { jobId, removeObjectOnFailure: false });
  } catch (error) {
    // A saved job keeps its upload (only its message is missing); anything else frees it for a retry.
    if (!(error instanceof JobNotQueued)) await deps.pendingUploads.release(uploadId, jobId).catch(() => undefined);
    throw error;
  }
}
