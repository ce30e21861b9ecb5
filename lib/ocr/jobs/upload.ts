import type { JobCredentials } from '../../auth/job-credentials.ts';
import type { User } from '../../auth/users.ts';
import type { SubscriptionStore } from '../../billing/subscriptions.ts';
import type { TierCatalogue } from '../../billing/tiers.ts';
import { usageSnapshot, type UsageSnapshot } from '../../billing/usage.ts';
import { badRequest, DomainError, internal } from '../../errors.ts';
import { newJobId, newObjectId } from '../../ids.ts';
import { logger } from '../../log.ts';
import type { Objects } from '../../objects.ts';
import type { Queue } from '../../queue.ts';
import type { Gate } from '../access.ts';
import { newBookText, type FileRecord } from '../book-text.ts';
import { maxPagesPerRequest } from '../pages/page.ts';
import { uploadKey, type JobFields } from './fields.ts';
import type { OcrJobStore } from './store.ts';
import type { RereadOrder } from '../pages/reread.ts';
import { created, type IndexWrites } from '../../search/read-after-write.ts';

/** Creating an OCR job (docs/SPEC.md 4.1 `POST /ocr`, state table 3.1 first row). */
export interface UploadDeps {
  ocrJobs: OcrJobStore;
  /** The new book is listed before the upload answers (lib/search/read-after-write.ts). */
  index: IndexWrites;
  uploads: Objects;
  uploadsBucket: string;
  ocrQueue: Queue;
  subscriptions: SubscriptionStore;
  tierCatalogue: TierCatalogue;
  /** Issues the job's credential, which its message carries to the worker (lib/auth/job-credentials.ts). */
  jobCredentials: JobCredentials;
  now: () => Date;
}

export const jobCreationFailed = 'Error creating OCR job';
export const jobCreated = 'OCR job created successfully';

/** The File and pending BookText were saved but the job message was not sent (the spec's 500). */
export class JobNotQueued extends DomainError {
  constructor() {
    super('internal', 'The job was saved but could not be queued');
    this.name = 'JobNotQueued';
  }
}

/** A file already in the uploads bucket (put by the API, or by the client through a presigned POST). */
export interface StoredFile {
  storageKey: string;
  originalName: string;
  fileType: string;
  fileSize: number;
}

export interface CreatedJob {
  message: string;
  jobId: string;
  bookTextId: string;
  fileId: string;
  fileName: string;
  storageKey: string;
  queueMessageId: string;
  status: 'pending';
  usageInfo: UsageSnapshot;
}

/** The job message the OCR worker receives (docs/SPEC.md 4.1: every field it lists). */
export interface OcrJobMessage {
  jobId: string;
  fileId: string;
  bookTextId: string;
  userId: string;
  storage: { bucket: string; key: string };
  fileName: string;
  fileType: string;
  fileSize: number;
  language: string;
  customPrompt: string | null;
  metadata: Record<string, unknown>;
  /**
   * Not in docs/SPEC.md (an addition): the job's own credential, what the worker calls the callbacks and
   * the job's status with (docs/ocr-worker.md, "Connecting an OCR worker"); a worker with an editor token may ignore it.
   */
  credential: string;
  /**
   * Not in docs/SPEC.md (an addition): set when the message asks for one page of a completed job to be read
   * again (lib/ocr/pages/reread.ts; docs/interface.md, "Reading a page again"; the worker's side in docs/ocr-worker.md); absent on a job.
   */
  reread?: RereadOrder;
}

/** The message as the job's claim keeps it, for the sweeper to send again: the credential is issued afresh then. */
export type QueuedOcrJob = Omit<OcrJobMessage, 'credential' | 'reread'>;

/**
 * The page cap of a job's credential: the most pages any job reads (a PDF or a TIFF). Not the file's
 * own count: the service does not parse an upload (a file declared as one PNG may be a PDF, which the
 * worker reads by its content), so the cap is the job's, and a leaked credential bills its owner at
 * most this many pages.
 */
export const jobPageCap = maxPagesPerRequest;

/**
 * Writes the File and the pending BookText together, then queues the job. A failed write leaves
 * nothing behind (the stored object is removed); a failed queue send leaves the File and the pending
 * BookText, as the spec says, and answers 500; the sweeper queues that job later (lib/ocr/jobs/stalled.ts).
 */
export async function createJob(
  deps: UploadDeps,
  user: User,
  stored: StoredFile,
  fields: JobFields,
  usageInfo: UsageSnapshot,
  options: { jobId?: string; removeObjectOnFailure: boolean },
): Promise<CreatedJob> {
  const at = deps.now().toISOString();
  const fileName = fields.fileName ?? stored.originalName;
  const file: FileRecord = {
    fileId: newObjectId(),
    userId: user.userId,
    fileName,
    author: fields.author,
    fileType: stored.fileType,
    fileSize: stored.fileSize,
    tags: fields.tags,
    categories: fields.categories.length ? fields.categories : ['ocr'],
    visibility: fields.visibility,
    storageKey: stored.storageKey,
    createdAt: at,
    updatedAt: at,
  };
  const bookText = newBookText(
    {
      bookTextId: newObjectId(),
      jobId: options.jobId ?? newJobId(),
      fileId: file.fileId,
      userId: user.userId,
      fileName,
      status: 'pending',
      language: fields.language,
      tags: fields.tags,
      categories: fields.categories,
      metadata: fields.metadata,
    },
    at,
  );

  // Issued before anything is written: a key that cannot sign leaves no job behind.
  let credential: string;
  try {
    credential = await deps.jobCredentials.issue({ jobId: bookText.jobId, userId: user.userId, fileId: file.fileId, maxPages: jobPageCap }, deps.now());
  } catch (error) {
    logger.error('Issuing the job credential failed', { jobId: bookText.jobId, error: error as Error });
    if (options.removeObjectOnFailure) await deps.uploads.delete(stored.storageKey).catch(() => undefined);
    throw internal('The job could not be saved');
  }
  const queued: QueuedOcrJob = {
    jobId: bookText.jobId,
    fileId: file.fileId,
    bookTextId: bookText.bookTextId,
    userId: user.userId,
    storage: { bucket: deps.uploadsBucket, key: stored.storageKey },
    fileName,
    fileType: stored.fileType,
    fileSize: stored.fileSize,
    language: fields.language,
    customPrompt: fields.customPrompt ?? null,
    metadata: fields.metadata,
  };
  try {
    // The claim keeps the message: should the send below fail or the message be lost, the sweeper sends it again.
    if (!(await deps.ocrJobs.create(bookText, file, queued))) throw new Error(`job id ${bookText.jobId} already taken`);
  } catch (error) {
    logger.error('Storing the OCR job failed', { jobId: bookText.jobId, error: error as Error });
    if (options.removeObjectOnFailure) await deps.uploads.delete(stored.storageKey).catch(() => undefined);
    throw internal('The job could not be saved');
  }
  await deps.index.written([created(bookText.bookTextId)]);

  const message: OcrJobMessage = { ...queued, credential };
  let queueMessageId: string;
  try {
    ({ messageId: queueMessageId } = await deps.ocrQueue.send(message));
  } catch (error) {
    logger.error('Queueing the OCR job failed', { jobId: bookText.jobId, error: error as Error });
    throw new JobNotQueued();
  }

  return {
    message: jobCreated,
    jobId: bookText.jobId,
    bookTextId: bookText.bookTextId,
    fileId: file.fileId,
    fileName,
    storageKey: stored.storageKey,
    queueMessageId,
    status: 'pending',
    usageInfo,
  };
}

/** The usage snapshot for the response, taken before anything is stored so its failure leaves nothing behind. */
export async function snapshotForUpload(deps: UploadDeps, user: User, gate: Gate): Promise<UsageSnapshot> {
  try {
    return await usageSnapshot(deps, user, deps.now(), gate);
  } catch (error) {
    logger.error('Reading usage failed', { userId: user.userId, error: error as Error });
    throw internal('Usage could not be read');
  }
}

/** A file as the form carried it (the multipart parser has already held it to the upload rules). */
export interface FormFile {
  fileName: string;
  mimeType: string;
  size: number;
  data: Uint8Array;
}

export const noFileUploaded = 'No file uploaded';

/** The form's file: without one, `POST /ocr` is the spec's 400 (before its fields are read). */
export function requireFile(file: FormFile | undefined): FormFile {
  if (!file) throw badRequest(noFileUploaded);
  return file;
}

/**
 * `POST /ocr` once the subscription gate has passed and the form is read (docs/SPEC.md 4.1): the usage
 * snapshot is taken before anything is stored, and the file is stored before the records that point
 * at it. The presigned path's twin is `createJobFromUpload`.
 */
export async function createJobFromForm(deps: UploadDeps, user: User, gate: Gate, file: FormFile, fields: JobFields): Promise<CreatedJob> {
  const usageInfo = await snapshotForUpload(deps, user, gate);
  const stored = { storageKey: uploadKey(file.fileName), originalName: file.fileName, fileType: file.mimeType, fileSize: file.size };
  await deps.uploads.put(stored.storageKey, file.data, stored.fileType);
  return createJob(deps, user, stored, fields, usageInfo, { removeObjectOnFailure: true });
}
