import { generateKeyPairSync, createVerify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { servedByDistribution } from '../../lib/adapters/cloudfront/media-urls.ts';
import type { Objects } from '../../lib/objects.ts';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
const base = 'https://d111111abcdef8.cloudfront.net';
let keyReads = 0;
const bucket = { presignGet: async () => 'https://s3.example/presigned' } as unknown as Objects;
const media = servedByDistribution(bucket, { urlBase: base, keyPairId: 'K2JCJMDEHXQW5F', privateKey: async () => (keyReads++, privateKey) });

/** CloudFront's URL-safe base64 back to bytes. */
const unsafe = (value: string) => Buffer.from(value.replace(/-/g, '+').replace(/_/g, '=').replace(/~/g, '/'), 'base64');
const verifies = (policy: string, signature: string) => createVerify('RSA-SHA1').update(policy).verify(publicKey, unsafe(signature));

describe('media URLs signed for the CloudFront distribution', () => {
  it('gives every key of a listing a short URL under one policy for its prefix, signed once', async () => {
    const keys = ['6650a1b2c3d4e5f6a7b8c9d0/line-1/arabic/alloy_0f.mp3', '6650a1b2c3d4e5f6a7b8c9d0/line-2/english/echo_1e.mp3'];
    const before = Date.now();
    const urls = await media.presignGetAll('6650a1b2c3d4e5f6a7b8c9d0/', keys, 7200);
    expect(urls.map((u) => u.split('?')[0])).toEqual(keys.map((k) => `${base}/${k}`));
    const queries = urls.map((u) => new URL(u).searchParams);
    expect(queries[0]!.toString()).toBe(queries[1]!.toString());
    const policy = unsafe(queries[0]!.get('Policy')!).toString('utf8');
    const statement = JSON.parse(policy).Statement[0];
    expect(statement.Resource).toBe(`${base}/6650a1b2c3d4e5f6a7b8c9d0/*`);
    const epoch = statement.Condition.DateLessThan['AWS:EpochTime'];
    expect(epoch).toBeGreaterThanOrEqual(Math.floor(before / 1000) + 7200);
    expect(epoch).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 7200);
    expect(queries[0]!.get('Key-Pair-Id')).toBe('K2JCJMDEHXQW5F');
    expect(verifies(policy, queries[0]!.get('Signature')!)).toBe(true);
    expect(urls[0]!.length).toBeLessThan(800); // S3 presigned with a Lambda role's session credentials: about 1,700
  });

  it('signs one URL with a canned policy that lives as long as asked', async () => {
    const url = new URL(await media.presignGet('ocr-pages/4b6f/1.png', 604_800));
    expect(`${url.origin}${url.pathname}`).toBe(`${base}/ocr-pages/4b6f/1.png`);
    const expires = Number(url.searchParams.get('Expires'));
    expect(expires - Date.now() / 1000).toBeGreaterThan(604_790);
    const canned = JSON.stringify({ Statement: [{ Resource: `${base}/ocr-pages/4b6f/1.png`, Condition: { DateLessThan: { 'AWS:EpochTime': expires } } }] });
    expect(verifies(canned, url.searchParams.get('Signature')!)).toBe(true);
  });

  it('escapes keys as S3 names them (Arabic file names, spaces)', async () => {
    const [url] = await media.presignGetAll('ocr/', ['ocr/1f-كتاب (1).png'], 60);
    expect(url!.split('?')[0]).toBe(`${base}/ocr/1f-${encodeURIComponent('كتاب')}%20%281%29.png`);
  });

  it('never grants a prefix for a key outside it', async () => {
    await expect(media.presignGetAll('book-a/', ['book-b/x.mp3'], 60)).rejects.toThrow('not under book-a/');
  });

  it('reads the private key through the given loader (cached by the caller)', async () => {
    const reads = keyReads;
    await media.presignGet('a/b.mp3', 60);
    expect(keyReads).toBe(reads + 1);
  });
});
