import { CopyObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, NoSuchKey, NotFound, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';

const s3 = mockClient(S3Client);
// AWS's own endpoints, not the embedded S3 the global setup names in AWS_ENDPOINT_URL_S3.
const client = new S3Client({
  region: 'us-east-1',
  credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' },
  ignoreConfiguredEndpointUrls: true,
});
const objects = s3Objects(client, 'uploads');
const meta = { $metadata: { httpStatusCode: 404 } };

describe('S3 objects adapter', () => {
  beforeEach(() => s3.reset());

  it('reads a missing key as undefined', async () => {
    s3.on(GetObjectCommand).rejects(new NoSuchKey({ message: 'The specified key does not exist.', ...meta }));
    s3.on(HeadObjectCommand).rejects(new NotFound({ message: 'UnknownError', ...meta }));
    await expect(objects.getText('ocr-results/nope.txt')).resolves.toBeUndefined();
    await expect(objects.head('ocr/nope.pdf')).resolves.toBeUndefined();
  });

  it('treats any bare 404 as missing, and other failures as failures', async () => {
    s3.on(HeadObjectCommand).rejectsOnce(new S3ServiceException({ name: 'Unknown', $fault: 'client', ...meta }));
    await expect(objects.head('ocr/nope.pdf')).resolves.toBeUndefined();
    const denied = new S3ServiceException({ name: 'AccessDenied', $fault: 'client', $metadata: { httpStatusCode: 403 } });
    s3.on(HeadObjectCommand).rejects(denied);
    await expect(objects.head('ocr/secret.pdf')).rejects.toBe(denied);
  });

  it('maps HeadObject to size, type, time and ETag', async () => {
    const at = new Date('2026-11-20T10:00:00.000Z');
    s3.on(HeadObjectCommand, { Bucket: 'uploads', Key: 'ocr/a.pdf' }).resolves({ ContentLength: 42, ContentType: 'application/pdf', LastModified: at, ETag: '"abc"' });
    await expect(objects.head('ocr/a.pdf')).resolves.toEqual({ size: 42, contentType: 'application/pdf', lastModified: at.toISOString(), eTag: '"abc"' });
  });

  it('copies with CopyObject held to the ETag, the source escaped as S3 reads it, and reads a failed condition or a missing source as false', async () => {
    s3.on(CopyObjectCommand).resolves({});
    await expect(objects.copyIfUnchanged('incoming/u-كتاب (1).pdf', 'ocr/j-book.pdf', '"abc"')).resolves.toBe(true);
    expect(s3.commandCalls(CopyObjectCommand)[0]!.args[0].input).toEqual({
      Bucket: 'uploads',
      Key: 'ocr/j-book.pdf',
      CopySource: 'uploads/incoming/u-%D9%83%D8%AA%D8%A7%D8%A8%20%281%29.pdf',
      CopySourceIfMatch: '"abc"',
    });
    s3.on(CopyObjectCommand).rejects(new S3ServiceException({ name: 'PreconditionFailed', $fault: 'client', $metadata: { httpStatusCode: 412 } }));
    await expect(objects.copyIfUnchanged('incoming/a', 'ocr/b', '"abc"')).resolves.toBe(false);
    s3.on(CopyObjectCommand).rejects(new NoSuchKey({ message: 'The specified key does not exist.', ...meta }));
    await expect(objects.copyIfUnchanged('incoming/a', 'ocr/b', '"abc"')).resolves.toBe(false);
    s3.on(CopyObjectCommand).rejects(new S3ServiceException({ name: 'AccessDenied', $fault: 'client', $metadata: { httpStatusCode: 403 } }));
    await expect(objects.copyIfUnchanged('incoming/a', 'ocr/b', '"abc"')).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('lists one page of keys after a key with ListObjectsV2 (StartAfter, MaxKeys), and says whether more follow', async () => {
    const at = new Date('2026-11-20T10:00:00.000Z');
    s3.on(ListObjectsV2Command).resolves({ Contents: [{ Key: 'b/1.mp3', Size: 7, LastModified: at }], IsTruncated: true });
    await expect(objects.listPage('b/', 'b/0.mp3', 1000)).resolves.toEqual({
      objects: [{ key: 'b/1.mp3', size: 7, lastModified: at.toISOString() }],
      more: true,
    });
    expect(s3.commandCalls(ListObjectsV2Command)[0]!.args[0].input).toEqual({ Bucket: 'uploads', Prefix: 'b/', StartAfter: 'b/0.mp3', MaxKeys: 1000 });
    s3.on(ListObjectsV2Command).resolves({ KeyCount: 0 });
    await expect(objects.listPage('', undefined, 1000)).resolves.toEqual({ objects: [], more: false });
    expect(s3.commandCalls(ListObjectsV2Command)[1]!.args[0].input).toEqual({ Bucket: 'uploads', Prefix: '', MaxKeys: 1000 });
  });

  it('puts with the content type', async () => {
    s3.on(PutObjectCommand).resolves({});
    await objects.put('ocr-results/j.txt', 'نص', 'text/plain; charset=utf-8');
    expect(s3.commandCalls(PutObjectCommand)[0]!.args[0].input).toEqual({
      Bucket: 'uploads',
      Key: 'ocr-results/j.txt',
      Body: 'نص',
      ContentType: 'text/plain; charset=utf-8',
    });
  });

  it('presigns a GET for the lifetime asked, with an optional disposition', async () => {
    const url = new URL(await objects.presignGet('pages/1.png', 3600, { contentDisposition: 'attachment; filename="book.docx"' }));
    expect(url.pathname).toBe('/pages/1.png');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
    expect(url.searchParams.get('response-content-disposition')).toBe('attachment; filename="book.docx"');
    const plain = new URL(await objects.presignGet('pages/1.png', 60));
    expect(plain.searchParams.get('X-Amz-Expires')).toBe('60');
    expect(plain.searchParams.has('response-content-disposition')).toBe(false);
  });

  it('presigns a POST whose policy carries the size range and the content type', async () => {
    const post = await objects.presignPost('ocr/u.pdf', { contentType: 'application/pdf', minBytes: 1, maxBytes: 100, expiresInSeconds: 900 });
    expect(post.url).toBe('https://uploads.s3.us-east-1.amazonaws.com/');
    expect(post.fields).toMatchObject({ key: 'ocr/u.pdf', 'Content-Type': 'application/pdf', bucket: 'uploads' });
    const policy = JSON.parse(Buffer.from(post.fields.Policy!, 'base64').toString('utf8'));
    expect(policy.conditions).toEqual(
      expect.arrayContaining([['content-length-range', 1, 100], ['eq', '$Content-Type', 'application/pdf'], { key: 'ocr/u.pdf' }]),
    );
    // X-Amz-Date is the signing time in basic ISO 8601 (20260101T000000Z).
    const signedAt = Date.parse(post.fields['X-Amz-Date']!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
    expect(Date.parse(policy.expiration) - signedAt).toBe(900_000);
  });
});
