import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { keySigner, presignKeys } from '../../lib/adapters/s3/key-urls.ts';

/**
 * The embedded S3 accepts any SigV4 signature (s3rver does not check them), so the only proof here
 * that a URL signed by key-urls.ts works on S3 is that it is the very URL the SDK signs.
 */
const credentials = { accessKeyId: 'ASIAEXAMPLEKEY000001', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', sessionToken: 'IQoJb3JpZ2luX2VjE'.repeat(40) };
const clients = {
  'AWS (virtual-hosted, session credentials)': new S3Client({ region: 'eu-west-1', credentials }),
  'the local stand-in (path-style)': new S3Client({ region: 'us-east-1', endpoint: 'http://127.0.0.1:4568', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } }),
};
const bucket = 'maktaba-audio-123456789012';

const segment = fc.string({ unit: fc.constantFrom(...'abcXYZ019-_.~ !\'()*%+=&?#@:,;$[]ÿ'.split(''), 'ب', 'ة', 'ً', '😀', '\u200f'), minLength: 1, maxLength: 12 });
const key = fc.array(fc.oneof(segment, fc.constantFrom('.', '..', '')), { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'))
  .filter((k) => k !== ''); // S3 keys are 1 to 1,024 bytes

const sdkUrl = (client: S3Client, k: string, expiresIn: number, signingDate: Date) =>
  getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: k }), { expiresIn, signingDate });

describe.each(Object.entries(clients))('presigned GET URLs for many keys, %s', (_, client) => {
  it('signs every key exactly as the SDK does', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(key, { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 604_800 }), async (keys, expiresIn) => {
        const urls = await presignKeys(client, bucket, keys, expiresIn);
        const signedAt = new URL(urls[0]!).searchParams.get('X-Amz-Date')!;
        const signingDate = new Date(signedAt.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'));
        expect(urls).toEqual(await Promise.all(keys.map((k) => sdkUrl(client, k, expiresIn, signingDate))));
        // ... and without the SDK past the first key.
        expect(keySigner(urls[0]!, keys[0]!, (await client.config.credentials()).secretAccessKey)).toBeDefined();
      }),
      { numRuns: 200 },
    );
  });

  it('signs without the SDK after the first key', async () => {
    const signingDate = new Date('2026-11-23T10:00:00Z');
    const first = await sdkUrl(client, 'book/line/arabic/alloy_00.mp3', 7200, signingDate);
    const sign = keySigner(first, 'book/line/arabic/alloy_00.mp3', (await client.config.credentials()).secretAccessKey);
    expect(sign).toBeDefined();
    expect(sign!('book/سطر (2)/english/nova_ff.mp3')).toBe(await sdkUrl(client, 'book/سطر (2)/english/nova_ff.mp3', 7200, signingDate));
    // A URL not of the SDK's form for that key is refused, so the SDK signs every key instead.
    expect(keySigner(first, 'book/other.mp3', 'secret')).toBeUndefined();
    expect(keySigner(first.replace('X-Amz-SignedHeaders=host', 'X-Amz-SignedHeaders=host%3Brange'), 'book/line/arabic/alloy_00.mp3', 'secret')).toBeUndefined();
  });
});
