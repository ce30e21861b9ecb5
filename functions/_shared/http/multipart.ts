import busboy from 'busboy';
import { badRequest } from '../../../lib/errors.ts';
import { maxUploadBytes, tooLargeMessage, UploadRejected, uploadRejection } from '../../../lib/ocr/jobs/upload-rules.ts';

export interface UploadedFile {
  fieldName: string;
  fileName: string;
  mimeType: string;
  data: Buffer;
  size: number;
}

export interface MultipartForm {
  /** Undefined when no file was sent: the route answers with its own 400. */
  file?: UploadedFile;
  fields: Record<string, string>;
}

/** The one file field POST /ocr reads (multer's `upload.single('file')`). */
export const fileField = 'file';

/**
 * What a form may hold besides its file (issue 27): the job's fields are a dozen, `jobMetadata` at
 * most 16 KB of JSON. busboy's defaults allow any number of parts, 1 MB a field and 2,000 header
 * pairs a part; a form past these is refused like multer's limits (`Too many parts`).
 */
export const formLimits = { fields: 32, parts: 40, files: 2, fieldSize: 64 * 1024, fieldNameSize: 100, headerPairs: 20 } as const;
export const tooManyParts = 'Too many parts';
export const tooManyFields = 'Too many fields';
export const tooManyFiles = 'Too many files';

/**
 * Parses a multipart/form-data body, as multer's `single('file')` with a type filter would: one file
 * under `file`, any other file refused like multer's "Unexpected field", text fields kept as strings
 * (the last of a repeated name wins). The body is already in memory (a Lambda event), so the whole
 * body is parsed and the first refusal is reported at the end.
 */
export function parseMultipart(
  body: Buffer,
  contentType: string | undefined,
  { maxBytes = maxUploadBytes }: { maxBytes?: number } = {},
): Promise<MultipartForm> {
  // busboy also reads form-urlencoded bodies; multer reads only multipart ones for a file.
  if (!/^multipart\/form-data\b/i.test(contentType ?? '')) return Promise.reject(badRequest('Expected a multipart/form-data body'));
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      // Browsers send the raw UTF-8 bytes of a file name (Arabic names), not RFC 5987 `filename*`.
      defParamCharset: 'utf8',
      // busboy flags a file that *reaches* fileSize; one byte more keeps exactly maxBytes allowed,
      // as the presigned path's content-length-range does.
      limits: { fileSize: maxBytes + 1, ...formLimits },
    });
  } catch (error) {
    // Missing or non-multipart content type, or no boundary.
    return Promise.reject(badRequest(`Expected a multipart/form-data body (${(error as Error).message})`));
  }

  return new Promise((resolve, reject) => {
    let file: UploadedFile | undefined;
    let fileSeen = false; // set at the part's start: a second file may begin before the first ends
    let refusal: UploadRejected | undefined;
    const fields = new Map<string, string>();
    const refuse = (message: string) => (refusal ??= new UploadRejected(message));

    parser.on('file', (fieldName, stream, { filename, mimeType }) => {
      // A truncated body destroys the file stream with an error; the parser reports it too.
      stream.on('error', () => {});
      // Like multer, ignore a part with no file name (an unfilled file input): the route answers 400.
      if (refusal || !filename) return stream.resume();
      if (fieldName !== fileField || fileSeen) {
        refuse(`Unexpected field: ${fieldName}. Send exactly one file, in the field "${fileField}"`);
        return stream.resume();
      }
      const typeRefusal = uploadRejection(mimeType, 0, maxBytes);
      if (typeRefusal) {
        refuse(typeRefusal);
        return stream.resume();
      }
      fileSeen = true;
      const chunks: Buffer[] = [];
      // busboy stops at limits.fileSize and says so with 'limit' (and `truncated`).
      stream.on('limit', () => refuse(tooLargeMessage(maxBytes)));
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (stream.truncated) return;
        const data = Buffer.concat(chunks);
        file = { fieldName, fileName: filename, mimeType, data, size: data.length };
      });
    });

    parser.on('field', (name, value, { nameTruncated, valueTruncated }) => {
      // multer refuses a field cut short by busboy's limits rather than pass on half a value.
      if (nameTruncated) refuse(`Field name too long: ${name}`);
      else if (valueTruncated) refuse(`Field value too long: ${name}`);
      else fields.set(name, value);
    });

    parser.on('partsLimit', () => refuse(tooManyParts));
    parser.on('fieldsLimit', () => refuse(tooManyFields));
    parser.on('filesLimit', () => refuse(tooManyFiles));
    parser.on('error', (error) => reject(badRequest(`Malformed multipart body: ${(error as Error).message}`)));
    parser.on('close', () => (refusal ? reject(refusal) : resolve({ file, fields: Object.fromEntries(fields) })));
    parser.end(body);
  });
}
