import { S3Client } from '@aws-sdk/client-s3';
import { once } from '../../lazy.ts';
import { traced } from './tracing.ts';

/** The process's S3 client (see clients.ts), traced. Presigned URLs are unaffected: SigV4 never signs X-Amzn-Trace-Id. */
export const s3Client = once(() =>
  traced(
    new S3Client({
      // The local stand-in serves buckets by path, not by virtual host.
      forcePathStyle: Boolean(process.env.AWS_ENDPOINT_URL_S3),
      // Otherwise presigned URLs carry a checksum of an empty body and uploads send trailers.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    }),
  ),
);
