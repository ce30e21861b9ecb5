import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import type { EmbeddedEnv } from '../setup/embedded-stack.ts';

const env = process.env as unknown as EmbeddedEnv;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
const objects = () => s3Objects(s3Client(), env.UPLOADS_BUCKET);

describe('S3 objects adapter on the embedded S3', () => {
  it('puts, reads, heads and deletes UTF-8 text', async () => {
    const key = `ocr-results/${unique('job')}.txt`;
    const text = 'بسم الله الرحمن الرحيم\nThe Forty Hadith';
    await objects().put(key, text, 'text/plain; charset=utf-8');
    expect(await objects().getText(key)).toBe(text);
    expect(await objects().head(key)).toEqual({
      size: Buffer.byteLength(text),
      contentType: 'text/plain; charset=utf-8',
      lastModified: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      eTag: `"${createHash('md5').update(text).digest('hex')}"`,
    });
    await objects().delete(key);
    expect(await objects().getText(key)).toBeUndefined();
    expect(await objects().head(key)).toBeUndefined();
    await objects().delete(key); // already gone: still fine
  });

  it('lists a prefix a page at a time, each after the last key of the one before', async () => {
    const prefix = `${unique('pages')}/`;
    const keys = ['a', 'b', 'c', 'd', 'e'].map((name) => `${prefix}${name}.txt`);
    await Promise.all(keys.map((key) => objects().put(key, key, 'text/plain')));
    const first = await objects().listPage(prefix, undefined, 2);
    expect(first).toMatchObject({ objects: [{ key: keys[0], size: keys[0]!.length }, { key: keys[1] }], more: true });
    expect((await objects().listPage(prefix, keys[1], 2)).objects.map((o) => o.key)).toEqual([keys[2], keys[3]]);
    expect(await objects().listPage(prefix, keys[3], 2)).toMatchObject({ objects: [{ key: keys[4] }], more: false });
    await objects().deleteMany(keys);
  });

  it('copies an object only while it still has the ETag it was seen with, as S3 does', async () => {
    const from = `incoming/${unique('upload')}-كتاب (1).pdf`;
    await objects().put(from, '%PDF-1.7 first', 'application/pdf');
    const seen = (await objects().head(from))!.eTag;

    const to = `ocr/${unique('job')}-book.pdf`;
    expect(await objects().copyIfUnchanged(from, to, seen)).toBe(true);
    expect(await objects().getText(to)).toBe('%PDF-1.7 first');
    expect(await objects().head(to)).toMatchObject({ contentType: 'application/pdf', eTag: seen });

    // Replaced with other bytes of the same size: nothing is copied.
    await objects().put(from, '%PDF-1.7 other', 'application/pdf');
    const later = `ocr/${unique('job')}-book.pdf`;
    expect(await objects().copyIfUnchanged(from, later, seen)).toBe(false);
    expect(await objects().head(later)).toBeUndefined();
    await objects().delete(from);
    expect(await objects().copyIfUnchanged(from, later, seen)).toBe(false);
    await objects().deleteMany([to]);
  });

  it('presigns a GET that plain fetch follows, with the disposition asked for', async () => {
    const key = `pages/${unique('page')}.png`;
    const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255]);
    await objects().put(key, bytes, 'image/png');
    const url = await objects().presignGet(key, 3600, { contentDisposition: 'attachment; filename="page.png"' });
    expect(url.startsWith(`${env.AWS_ENDPOINT_URL_S3}/${env.UPLOADS_BUCKET}/`)).toBe(true);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="page.png"');
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(bytes);
  });

  it('presigns a browser POST upload at the path-style bucket URL', async () => {
    const key = `ocr/${unique('upload')}-book.pdf`;
    const rules = { contentType: 'application/pdf', minBytes: 1, maxBytes: 1024, expiresInSeconds: 900 };
    const post = await objects().presignPost(key, rules);
    expect(post.url).toBe(`${env.AWS_ENDPOINT_URL_S3}/${env.UPLOADS_BUCKET}`);

    // As a browser sends it: every policy field first, the file last.
    const form = new FormData();
    for (const [name, value] of Object.entries(post.fields)) form.append(name, value);
    form.append('file', new Blob(['%PDF-1.7 كتاب'], { type: 'application/pdf' }), 'book.pdf');
    const response = await fetch(post.url, { method: 'POST', body: form });
    expect(response.status, await response.text()).toBe(204);

    expect(await objects().head(key)).toMatchObject({ size: Buffer.byteLength('%PDF-1.7 كتاب'), contentType: 'application/pdf' });
    expect(await objects().getText(key)).toBe('%PDF-1.7 كتاب');
  });

  it('signs many keys under one prefix in one call, each URL fetchable, in the order asked', async () => {
    const prefix = `${unique('book')}/`;
    const keys = [`${prefix}line-2/arabic/alloy_ab.mp3`, `${prefix}line-1/english/echo_cd.mp3`, `${prefix}صفحة (1)/page.png`];
    for (const [i, key] of keys.entries()) await objects().put(key, `object ${i}`, 'audio/mpeg');
    const urls = await objects().presignGetAll(prefix, keys, 3600);
    expect(urls).toHaveLength(3);
    for (const [i, url] of urls.entries()) {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(`object ${i}`);
      expect(response.headers.get('content-type')).toBe('audio/mpeg');
    }
  });

  it('refuses to sign a key outside the prefix it grants', async () => {
    await expect(objects().presignGetAll('book-a/', ['book-a/x.mp3', 'book-b/y.mp3'], 60)).rejects.toThrow('not under book-a/');
  });

  it('signs URLs the store refuses once their lifetime is over', async () => {
    const key = `expiring/${unique('line')}.mp3`;
    await objects().put(key, 'short-lived', 'audio/mpeg');
    const [url] = await objects().presignGetAll('expiring/', [key], 5);
    // The lifetime counts from X-Amz-Date, which is whole seconds: a 1 s URL signed late in a second
    // lives a few milliseconds. Wait for the end the URL itself states, not a guess.
    const signedAt = new URL(url!).searchParams.get('X-Amz-Date')!;
    const expiresAt = Date.parse(signedAt.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z')) + 5000;
    expect((await fetch(url!)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 1100));
    expect((await fetch(url!)).status).toBe(403);
  });
});
