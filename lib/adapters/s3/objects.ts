import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  paginateListObjectsV2,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  type S3Client,
  type _Object,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { Objects, StoredObject } from '../../objects.ts';
import { escapeKey, presignKeys } from './key-urls.ts';
import { keysUnder } from '../../objects.ts';

/** A missing key: GetObject says NoSuchKey, HeadObject (no body to carry a code) only a bare 404. */
function isMissing(error: unknown): boolean {
  return (
    error instanceof NoSuchKey ||
    error instanceof NotFound ||
    (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode === 404
  );
}

/** S3's answer to a condition that did not hold (412 PreconditionFailed). */
const preconditionFailed = (error: unknown): boolean => (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode === 412;

async function unlessMissing<T>(attempt: Promise<T>): Promise<T | undefined> {
  try {
    return await attempt;
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

const iso = (date: Date | undefined) => (date ?? new Date(0)).toISOString();
const storedObject = (o: _Object): StoredObject => ({ key: o.Key!, size: o.Size ?? 0, lastModified: iso(o.LastModified) });

/** One bucket on S3 (or on s3rver locally: the client's forcePathStyle makes every URL path-style). */
export function s3Objects(client: S3Client, bucket: string): Objects {
  const Bucket = bucket;
  return {
    async put(key, body, contentType, headers) {
      await client.send(
        new PutObjectCommand({
          Bucket,
          Key: key,
          Body: body,
          ContentType: contentType,
          ContentEncoding: headers?.contentEncoding,
          ContentDisposition: headers?.contentDisposition,
          CacheControl: headers?.cacheControl,
        }),
      );
    },

    async getText(key) {
      const out = await unlessMissing(client.send(new GetObjectCommand({ Bucket, Key: key })));
      return out?.Body?.transformToString('utf-8');
    },

    async getBytes(key) {
      const out = await unlessMissing(client.send(new GetObjectCommand({ Bucket, Key: key })));
      return out?.Body?.transformToByteArray();
    },

    async list(prefix) {
      const found: StoredObject[] = [];
      for await (const page of paginateListObjectsV2({ client }, { Bucket, Prefix: prefix })) {
        for (const o of page.Contents ?? []) found.push(storedObject(o));
      }
      return found;
    },

    async listPage(prefix, after, max) {
      const out = await client.send(new ListObjectsV2Command({ Bucket, Prefix: prefix, StartAfter: after, MaxKeys: max }));
      return { objects: (out.Contents ?? []).map(storedObject), more: out.IsTruncated === true };
    },

    async deleteMany(keys) {
      // DeleteObjects takes 1,000 keys a call.
      for (let i = 0; i < keys.length; i += 1000) {
        const out = await client.send(
          new DeleteObjectsCommand({ Bucket, Delete: { Objects: keys.slice(i, i + 1000).map((Key) => ({ Key })), Quiet: true } }),
        );
        if (out.Errors?.length) throw new Error(`S3 refused to delete ${out.Errors.length} objects (first: ${out.Errors[0]!.Code})`);
      }
      return keys.length;
    },

    async head(key) {
      const out = await unlessMissing(client.send(new HeadObjectCommand({ Bucket, Key: key })));
      return out && { size: out.ContentLength ?? 0, contentType: out.ContentType, lastModified: iso(out.LastModified), eTag: out.ETag ?? '' };
    },

    async delete(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
    },

    async copyIfUnchanged(from, to, eTag) {
      try {
        // A copy up to 5 GB is one request (uploads are at most 1000 MB); the header is checked by S3
        // against the bytes it copies, so no write can slip between a check and the copy.
        await client.send(new CopyObjectCommand({ Bucket, Key: to, CopySource: `${Bucket}/${escapeKey(from)}`, CopySourceIfMatch: eTag }));
        return true;
      } catch (error) {
        if (preconditionFailed(error) || isMissing(error)) return false;
        throw error;
      }
    },

    presignGet(key, expiresInSeconds, options) {
      const command = new GetObjectCommand({
        Bucket,
        Key: key,
        ResponseContentDisposition: options?.contentDisposition,
        ResponseContentType: options?.contentType,
      });
      return getSignedUrl(client, command, { expiresIn: expiresInSeconds });
    },

    async presignGetAll(prefix, keys, expiresInSeconds) {
      return presignKeys(client, bucket, keysUnder(prefix, keys), expiresInSeconds);
    },

    presignPost(key, { contentType, minBytes, maxBytes, expiresInSeconds }) {
      return createPresignedPost(client, {
        Bucket,
        Key: key,
        Conditions: [
          ['content-length-range', minBytes, maxBytes],
          ['eq', '$Content-Type', contentType],
        ],
        Fields: { 'Content-Type': contentType },
        Expires: expiresInSeconds,
      });
    },
  };
}
