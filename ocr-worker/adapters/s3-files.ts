import { GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { FileBytes } from '../contract.ts';
import { pageImageKey, type JobFiles } from '../job/files.ts';

/** The job's files in S3: the upload read by range GETs (never whole), page images put as PNG. */
export function s3JobFiles(client: S3Client): JobFiles {
  return {
    async open(bucket, key): Promise<FileBytes> {
      const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
      const size = head.ContentLength ?? 0;
      return {
        size,
        async read(start, end) {
          const from = Math.max(0, start);
          const to = Math.min(end, size);
          if (to <= from) return new Uint8Array();
          const out = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: `bytes=${from}-${to - 1}` }));
          return out.Body!.transformToByteArray();
        },
      };
    },
    async putPageImage(bucket, jobId, pageNumber, png) {
      const key = pageImageKey(jobId, pageNumber);
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: png, ContentType: 'image/png' }));
      return key;
    },
  };
}
