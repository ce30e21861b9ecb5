import { randomBytes } from 'node:crypto';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '../../lib/adapters/aws/s3-client.ts';
import { s3Objects } from '../../lib/adapters/s3/objects.ts';
import { newJobId, newObjectId } from '../../lib/ids.ts';
import { newBookText, textKey, type BookText, type FileRecord } from '../../lib/ocr/book-text.ts';
import { newPage as pageRecord, pageIdOf } from '../../lib/ocr/pages/page.ts';
import { maxInlineBytes } from '../../lib/ocr/export/rules.ts';
import { startApi, seedUsers, type Account } from '../support/api.ts';
import { testStores } from '../support/stores.ts';

/** `ocr-export` through HTTP: `GET /ocr/books/:bookTextId/export/docx` (docs/SPEC.md 4.1). */
const stores = testStores();
const uploads = s3Objects(s3Client(), process.env.UPLOADS_BUCKET!);
const docxType = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
let api: Awaited<ReturnType<typeof startApi>>;
let owner: Account, ed: Account, nosub: Account, lapsed: Account, other: Account;

async function makeBook(
  userId: string,
  fields: Partial<BookText> & { fileName: string; author?: string },
  pages: string[] = [],
): Promise<string> {
  const at = new Date().toISOString();
  const { author = 'Unknown', ...bookFields } = fields;
  const file: FileRecord = {
    fileId: newObjectId(),
    userId,
    fileName: fields.fileName,
    author,
    fileType: 'application/pdf',
    fileSize: 100,
    tags: [],
    categories: ['ocr'],
    visibility: 'private',
    storageKey: `ocr/${newJobId()}-scan.pdf`,
    createdAt: at,
    updatedAt: at,
  };
  const book = newBookText({ bookTextId: newObjectId(), jobId: newJobId(), fileId: file.fileId, userId, status: 'completed', ...bookFields }, at);
  expect(await stores.ocr.create(book, file)).toBe(true);
  await stores.ocr.putPages(
    pages.map((text, i) => ({
      pageId: pageIdOf(book.bookTextId, i + 1),
      bookTextId: book.bookTextId,
      // Stored out of order on purpose: the export sorts by page number.
      pageNumber: pages.length - i,
      text,
      storageKey: null,
      isAIGenerated: true,
      updatedAt: at,
    })),
  );
  return book.bookTextId;
}

const path = (bookTextId: string, query = '') => `/ocr/books/${bookTextId}/export/docx${query}`;
const get = (account: Account | undefined, bookTextId: string, query = '') =>
  api.call('GET', path(bookTextId, query), account ? { token: account.token } : {});
/** The binary answer, which `api.call` would decode as text. */
async function download(account: Account, bookTextId: string, query = '', redirect: 'follow' | 'manual' = 'follow') {
  const res = await fetch(api.url + path(bookTextId, query), { headers: { authorization: `Bearer ${account.token}` }, redirect });
  return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
}
const documentXml = (bytes: Uint8Array) => strFromU8(unzipSync(bytes)['word/document.xml']!);

let arabicBook: string, publicBook: string;
beforeAll(async () => {
  api = await startApi();
  ({ owner, ed, nosub, lapsed, other } = await seedUsers(stores, [
    { key: 'owner', username: 'owner', subscription: { tier: 'basic', status: 'active' } },
    { key: 'ed', username: 'ed', role: 'editor' },
    { key: 'nosub', username: 'nosub' },
    { key: 'lapsed', username: 'lapsed', subscription: { tier: 'pro', status: 'past_due' } },
    { key: 'other', username: 'other', subscription: { tier: 'pro', status: 'active' } },
  ]));
  arabicBook = await makeBook(owner.userId, { fileName: 'كتاب الأربعين (الجزء ١).pdf', author: 'النووي', language: 'ar', pageCount: 2 }, [
    'الصفحة الثانية',
    'بسم الله الرحمن الرحيم\nالحمد لله',
  ]);
  publicBook = await makeBook(owner.userId, { fileName: 'Open book.pdf', language: 'en', visibility: 'public' }, ['Chapter one']);
});
afterAll(() => api?.close());

describe('GET /ocr/books/:bookTextId/export/docx', () => {
  it('answers 401 and 403 in plain text', async () => {
    expect(await get(undefined, arabicBook)).toMatchObject({ status: 401, body: 'Unauthorized: No token provided' });
    expect(await get({ userId: '', token: 'x.y.z' }, arabicBook)).toMatchObject({ status: 403, body: 'Forbidden: Invalid token' });
  });

  it('needs an active subscription, checked before the book is looked up', async () => {
    for (const account of [nosub, lapsed]) {
      for (const id of [newObjectId(), 'not-an-id', publicBook]) {
        const res = await get(account, id);
        expect(res).toMatchObject({
          status: 403,
          body: { success: false, message: expect.stringMatching(/subscription/), error: 'SUBSCRIPTION_REQUIRED', subscriptionRequired: true },
        });
      }
    }
  });

  it('answers 500 for a malformed id and 404 for a missing book', async () => {
    expect(await get(owner, 'not-an-id')).toMatchObject({
      status: 500,
      body: { success: false, message: 'Error exporting book', error: expect.stringContaining('not-an-id') },
    });
    expect(await get(owner, newObjectId())).toMatchObject({ status: 404, body: { success: false, message: 'Book not found' } });
  });

  it('lets no one but the owner, editors and admins export, a public book included', async () => {
    expect(await get(other, publicBook)).toMatchObject({ status: 403, body: { success: false, message: 'Unauthorized to export this book' } });
    expect(await get(other, arabicBook)).toMatchObject({ status: 403, body: { message: 'Unauthorized to export this book' } });
  });

  it('sends the owner the document: binary docx, attachment named after the file, right to left for Arabic', async () => {
    const { res, bytes } = await download(owner, arabicBook, '?fontSize=32&includeTitlePage=false');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(docxType);
    const name = 'كتاب الأربعين الجزء ١';
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${encodeURIComponent(name)}.docx"`);
    expect(decodeURIComponent(res.headers.get('content-disposition')!.match(/filename="([^"]+)"/)![1]!)).toBe(`${name}.docx`);
    expect(Buffer.from(bytes.subarray(0, 2)).toString()).toBe('PK');
    const xml = documentXml(bytes);
    expect(xml).toContain('<w:bidi/>');
    expect(xml).toContain('<w:rtl/>');
    expect(xml).toContain('<w:sz w:val="32"/><w:szCs w:val="32"/>');
    expect([...xml.matchAll(/<w:t[^>]*>([^<]*)<\/w:t>/g)].map((m) => m[1])).toEqual([
      'Page 1',
      'بسم الله الرحمن الرحيم',
      'الحمد لله',
      'Page 2',
      'الصفحة الثانية',
    ]);
    expect(xml).not.toContain('Author: ');
  });

  it('underlines the words the OCR engine doubted with markUncertain=true, and only then', async () => {
    const bookTextId = await makeBook(owner.userId, { fileName: 'doubted.pdf', language: 'ar', pageCount: 1 });
    const text = 'قال أبو عثمان الجاحظ';
    await stores.ocr.putPages([pageRecord(bookTextId, 1, { text, confidence: 58, uncertain: [[8, 13]] }, new Date().toISOString())]);
    const underlined = (xml: string) => [...xml.matchAll(/<w:u w:val="wave"[^>]*\/>(?:(?!<\/w:r>).)*?<w:t[^>]*>([^<]*)<\/w:t>/gs)].map((m) => m[1]);
    const marked = documentXml((await download(owner, bookTextId, '?markUncertain=true')).bytes);
    expect(underlined(marked)).toEqual(['عثمان']);
    for (const query of ['', '?markUncertain=false', '?markUncertain=1']) {
      const plain = documentXml((await download(owner, bookTextId, query)).bytes);
      expect(underlined(plain)).toEqual([]);
      expect(plain).toContain(text);
    }
  });

  it('writes the title page from the File (author) by default', async () => {
    const { res, bytes } = await download(owner, arabicBook);
    expect(res.status).toBe(200);
    const xml = documentXml(bytes);
    expect(xml).toContain('كتاب الأربعين (الجزء ١).pdf');
    expect(xml).toContain('النووي');
    expect(xml).toContain('<w:pageBreakBefore/>');
  });

  it('lets an editor export any book without a subscription; English stays left to right', async () => {
    const { res, bytes } = await download(ed, publicBook, '?pageBreaks=false');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="Open%20book.docx"');
    const xml = documentXml(bytes);
    expect(xml).toContain('Chapter one');
    expect(xml).not.toContain('<w:bidi/>');
    expect(xml).not.toContain('<w:rtl/>');
  });

  it('exports the full text, read from storage when long, for a book without pages', async () => {
    const jobId = newJobId();
    const long = `${'نص طويل '.repeat(1500)}\nالسطر الأخير`;
    const storedText = { version: newObjectId(), length: long.length };
    await uploads.put(textKey(jobId, storedText.version), long, 'text/plain; charset=utf-8');
    const id = await makeBook(owner.userId, { fileName: 'long.pdf', jobId, extractedText: long.slice(0, 1000), storedText });
    const { res, bytes } = await download(owner, id, '?includeTitlePage=false');
    expect(res.status).toBe(200);
    const xml = documentXml(bytes);
    expect(xml).toContain('السطر الأخير');
    expect(xml).not.toContain('Page ');
  });

  it('sends a document too large for a Lambda response through the bucket: 303 to a short-lived URL', async () => {
    // Random text barely compresses, so these ~5.7 MB of pages make a docx over the inline limit.
    const pages = Array.from({ length: 24 }, () => randomBytes(180_000).toString('base64'));
    const id = await makeBook(owner.userId, { fileName: 'Big scan.pdf', language: 'en' }, pages);

    const { res } = await download(owner, id, '', 'manual');
    expect(res.status).toBe(303);
    const location = res.headers.get('location')!;
    expect(location).toMatch(new RegExp(`/exports/${id}/[0-9a-f-]{36}/Big%20scan\\.docx\\?`));
    expect(new URL(location).searchParams.get('X-Amz-Expires')).toBe('300');

    // The URL itself is the credential: no token goes with it.
    const file = await fetch(location);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe(docxType);
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="Big%20scan.docx"');
    const bytes = new Uint8Array(await file.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(maxInlineBytes);
    const xml = documentXml(bytes);
    expect(xml).toContain(pages[0]!);
    expect(xml).toContain(pages[23]!);
    expect(xml).toContain('Page 24');
  }, 120_000);
});
