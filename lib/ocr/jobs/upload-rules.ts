import { DomainError } from '../../errors.ts';

/**
 * What POST /ocr accepts as a book scan (docs/SPEC.md section 8). Shared by the multipart parser and the
 * presigned-upload path, which checks the stored object with the same rules (the local S3 stand-in
 * does not enforce a POST policy).
 */
export const acceptedUploadTypes: readonly string[] = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/jpg',
  'image/tiff',
  'image/bmp',
  'image/webp',
];

const MB = 1024 * 1024;

/** 1000 MB, counted as multer counts its `fileSize` limit: in MiB. */
export const maxUploadBytes = 1000 * MB;

export const tooLargeMessage = (maxBytes = maxUploadBytes) =>
  `File too large: the maximum upload size is ${maxBytes % MB === 0 ? `${maxBytes / MB} MB` : `${maxBytes} bytes`}`;

export const invalidTypeMessage = (type: string) =>
  `Invalid file type: ${type}. Allowed types: ${acceptedUploadTypes.join(', ')}`;

/** The plain-text reason a file of this type and size is refused; undefined when it is accepted. */
export function uploadRejection(type: string, size: number, maxBytes = maxUploadBytes): string | undefined {
  if (!acceptedUploadTypes.includes(type)) return invalidTypeMessage(type);
  if (size > maxBytes) return tooLargeMessage(maxBytes);
  return undefined;
}

/**
 * A file the rules refuse (or, from the multipart parser, a file under an unexpected field). The spec
 * answers these with a plain-text 500 carrying the message, as its upload parser (multer) did.
 */
export class UploadRejected extends DomainError {
  constructor(message: string) {
    // The client's file, not our failure: not logged as an error.
    super('internal', message, { body: 'plain-text', logged: false });
    this.name = 'UploadRejected';
  }
}

/** Presigned uploads one user may hold that are not yet jobs (docs/decisions.md): at 1000 MB each, 20 GB at most. */
export const maxOpenUploads = 20;
/** A presigned upload not made into a job this long after it was asked for is removed, object and record. */
export const unclaimedUploadSeconds = 24 * 60 * 60;
