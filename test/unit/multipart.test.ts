import { describe, expect, it } from 'vitest';
import { formLimits, parseMultipart, tooManyFields } from '../../functions/_shared/http/multipart.ts';
import { DomainError } from '../../lib/errors.ts';
import { acceptedUploadTypes, maxUploadBytes, UploadRejected, uploadRejection } from '../../lib/ocr/jobs/upload-rules.ts';

/** The bytes and content type a browser (or fetch) sends for this form. */
async function encode(form: FormData): Promise<[Buffer, string]> {
  const response = new Response(form);
  return [Buffer.from(await response.arrayBuffer()), response.headers.get('content-type')!];
}

async function parse(form: FormData, options?: { maxBytes?: number }) {
  const [body, contentType] = await encode(form);
  return parseMultipart(body, contentType, options);
}

const pdf = (bytes = '%PDF-1.7 scanned pages') => new Blob([bytes], { type: 'application/pdf' });

async function refusal(attempt: Promise<unknown>): Promise<unknown> {
  return attempt.then(
    () => expect.fail('expected the upload to be refused'),
    (error: unknown) => error,
  );
}

describe('parseMultipart', () => {
  it('reads the file and the text fields, with an Arabic file name', async () => {
    const form = new FormData();
    form.append('fileName', 'كتاب الأربعين.pdf');
    form.append('tags', 'a,b');
    form.append('language', 'en');
    form.append('language', 'ar'); // the last of a repeated field wins
    form.append('file', pdf(), 'كتاب الأربعين.pdf');
    const parsed = await parse(form);
    expect(parsed.fields).toEqual({ fileName: 'كتاب الأربعين.pdf', tags: 'a,b', language: 'ar' });
    expect(parsed.file).toMatchObject({ fieldName: 'file', fileName: 'كتاب الأربعين.pdf', mimeType: 'application/pdf', size: 22 });
    expect(parsed.file!.data.toString()).toBe('%PDF-1.7 scanned pages');
  });

  it('returns no file when none was sent (the route answers 400)', async () => {
    const form = new FormData();
    form.append('language', 'ar');
    expect(await parse(form)).toEqual({ file: undefined, fields: { language: 'ar' } });
  });

  it('skips an empty file input, as multer does', async () => {
    const form = new FormData();
    form.append('file', new Blob([], { type: 'application/octet-stream' }), '');
    expect((await parse(form)).file).toBeUndefined();
  });

  it('refuses a type outside the allow-list, naming the allowed ones', async () => {
    const form = new FormData();
    form.append('file', new Blob(['hello'], { type: 'text/plain' }), 'notes.txt');
    const error = await refusal(parse(form));
    expect(error).toBeInstanceOf(UploadRejected);
    expect(error).toMatchObject({ kind: 'internal' }); // a 500 even where no handler maps it to plain text
    expect((error as Error).message).toBe(
      'Invalid file type: text/plain. Allowed types: application/pdf, image/png, image/jpeg, image/jpg, image/tiff, image/bmp, image/webp',
    );
  });

  it('accepts every allowed type', async () => {
    for (const type of acceptedUploadTypes) {
      const form = new FormData();
      form.append('file', new Blob(['x'], { type }), 'scan');
      expect((await parse(form)).file?.mimeType).toBe(type);
    }
  });

  it('refuses a second file', async () => {
    const form = new FormData();
    form.append('file', pdf(), 'one.pdf');
    form.append('file', pdf(), 'two.pdf');
    const error = await refusal(parse(form));
    expect(error).toBeInstanceOf(UploadRejected);
    expect((error as Error).message).toMatch(/^Unexpected field: file\b/);
  });

  it('refuses a file under another field name', async () => {
    const form = new FormData();
    form.append('document', pdf(), 'one.pdf');
    const error = await refusal(parse(form));
    expect(error).toBeInstanceOf(UploadRejected);
    expect((error as Error).message).toMatch(/^Unexpected field: document\b/);
  });

  it('takes a file of exactly the limit, and refuses one byte more', async () => {
    const at = new FormData();
    at.append('file', pdf('x'.repeat(1024)), 'at.pdf');
    expect((await parse(at, { maxBytes: 1024 })).file?.size).toBe(1024);

    const over = new FormData();
    over.append('file', pdf('x'.repeat(1025)), 'over.pdf');
    const error = await refusal(parse(over, { maxBytes: 1024 }));
    expect(error).toBeInstanceOf(UploadRejected);
    expect((error as Error).message).toBe('File too large: the maximum upload size is 1024 bytes');
  });

  it('states the spec limit in MB', () => {
    expect(maxUploadBytes).toBe(1000 * 1024 * 1024);
    expect(uploadRejection('application/pdf', maxUploadBytes)).toBeUndefined();
    expect(uploadRejection('application/pdf', maxUploadBytes + 1)).toBe('File too large: the maximum upload size is 1000 MB');
  });

  it('answers 400 to a body that is not multipart', async () => {
    for (const contentType of ['application/json', undefined, 'multipart/form-data']) {
      const error = await refusal(parseMultipart(Buffer.from('{"file":1}'), contentType));
      expect(error).toBeInstanceOf(DomainError);
      expect(error).toMatchObject({ kind: 'bad_request', message: expect.stringMatching(/^Expected a multipart\/form-data body/) });
    }
  });

  it('answers 400 to a multipart body cut short', async () => {
    const form = new FormData();
    form.append('file', pdf(), 'cut.pdf');
    const [body, contentType] = await encode(form);
    const error = await refusal(parseMultipart(body.subarray(0, body.length - 30), contentType));
    expect(error).toMatchObject({ kind: 'bad_request', message: expect.stringMatching(/^Malformed multipart body/) });
  });

  it('refuses a form of more parts or fields than a job has (busboy reads any number by default), and a field over 64 KB', async () => {
    const fields = new FormData();
    for (let i = 0; i < 1_000; i++) fields.append(`f${i}`, 'x');
    fields.append('file', pdf(), 'a.pdf');
    expect(await refusal(parse(fields))).toMatchObject({ message: tooManyFields });
    const files = new FormData();
    for (let i = 0; i < 50; i++) files.append('other', pdf(), 'a.pdf');
    expect(await refusal(parse(files))).toBeInstanceOf(UploadRejected);
    const big = new FormData();
    big.append('jobMetadata', 'x'.repeat(formLimits.fieldSize + 1));
    big.append('file', pdf(), 'a.pdf');
    expect(await refusal(parse(big))).toMatchObject({ message: 'Field value too long: jobMetadata' });
    const usual = new FormData();
    for (const name of ['fileName', 'language', 'author', 'tags', 'categories', 'visibility', 'jobMetadata']) usual.append(name, 'x');
    usual.append('file', pdf(), 'a.pdf');
    expect((await parse(usual)).file).toBeDefined();
  });
});
