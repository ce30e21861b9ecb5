import { describe, expect, it } from 'vitest';
import { isObjectId, sequentialObjectIds } from '../../lib/ids.ts';
import * as v from 'valibot';
import { notificationContracts } from '../../functions/notifications-api/contract.ts';
import { ocrApiContracts } from '../../functions/ocr-api/contract.ts';
import { calendarMonth, currentPeriod } from '../../lib/billing/subscriptions.ts';
import { parseTierCatalogue } from '../../lib/billing/tiers.ts';

/** The inbox's query as its contract parses it before the handler runs. */
const readPaging = (query: Record<string, string>) => v.parse(notificationContracts['GET /notifications'].query, query);

describe('notification paging parameters', () => {
  it('defaults to page 1 of 20', () => {
    expect(readPaging({})).toEqual({ page: 1, limit: 20 });
  });
  it('reads whole numbers and falls back to the defaults for anything else', () => {
    expect(readPaging({ page: '3', limit: '5' })).toEqual({ page: 3, limit: 5 });
    expect(readPaging({ page: '0', limit: '-2' })).toEqual({ page: 1, limit: 20 });
    expect(readPaging({ page: 'two', limit: '1.5' })).toEqual({ page: 1, limit: 20 });
  });
  it('caps the page size at 100', () => {
    expect(readPaging({ limit: '5000' }).limit).toBe(100);
  });
});

/** An OCR route's query as its contract parses it: the output, or the 400's text (the first issue's message). */
function readOcr(key: 'GET /ocr/jobs' | 'GET /ocr/books' | 'GET /ocr/books/{bookTextId}', query: Record<string, string>) {
  const result = v.safeParse(ocrApiContracts[key].query, query, { abortEarly: true });
  return result.success ? result.output : result.issues[0].message;
}

describe('OCR paging and filters (docs/decisions.md, "Maxima and caps")', () => {
  const nines = '9'.repeat(400);
  it('lists 20 from 0 by default, caps the size at 100 and refuses a start past the window', () => {
    expect(readOcr('GET /ocr/jobs', {})).toEqual({ status: undefined, limit: 20, offset: 0 });
    expect(readOcr('GET /ocr/jobs', { limit: nines, offset: '10000' })).toMatchObject({ limit: 100, offset: 10_000 });
    expect(readOcr('GET /ocr/jobs', { limit: '1.5', offset: '-1' })).toMatchObject({ limit: 20, offset: 0 });
    for (const offset of ['10001', nines]) expect(readOcr('GET /ocr/books', { offset })).toBe('offset must be at most 10000');
  });
  it('refuses a job status outside the five, its own text first; the catalogue keeps it (it matches no book)', () => {
    expect(readOcr('GET /ocr/jobs', { status: 'done', offset: nines })).toBe('status must be one of pending, processing, completed, failed, submission_failed');
    expect(readOcr('GET /ocr/jobs', { status: '' })).toMatchObject({ status: undefined });
    expect(readOcr('GET /ocr/books', { status: 'archived' })).toMatchObject({ status: 'archived' });
  });
  it('splits tags and categories on commas (a repeated parameter arrives joined) and falls back to the newest first', () => {
    expect(readOcr('GET /ocr/books', { tags: 'fiqh, history,,', categories: 'a', sort: 'constructor' })).toMatchObject({ tags: ['fiqh', 'history'], categories: ['a'], sort: 'date_desc' });
    expect(readOcr('GET /ocr/books', { sort: 'pages_asc', language: '' })).toMatchObject({ sort: 'pages_asc', language: undefined, tags: [] });
  });
  it('reads a book window of 50 pages from 0, at most 200, with the text unless includeText is not `true`', () => {
    // pageOrder: added (docs/interface.md, "Confidence"), page order by default.
    expect(readOcr('GET /ocr/books/{bookTextId}', {})).toEqual({ pageLimit: 50, pageOffset: 0, includeText: true, pageOrder: 'number' });
    expect(readOcr('GET /ocr/books/{bookTextId}', { pageOrder: 'confidence' })).toMatchObject({ pageOrder: 'confidence' });
    expect(readOcr('GET /ocr/books/{bookTextId}', { pageOrder: 'CONFIDENCE' })).toMatchObject({ pageOrder: 'number' });
    expect(readOcr('GET /ocr/books/{bookTextId}', { pageLimit: '5000', includeText: 'false' })).toMatchObject({ pageLimit: 200, includeText: false });
    expect(readOcr('GET /ocr/books/{bookTextId}', { pageOffset: nines })).toBe('pageOffset must be at most 10000');
  });
});

describe('ids', () => {
  it('makes ordered runs of valid ObjectIds for book lines', () => {
    const ids = sequentialObjectIds(500);
    expect(ids.every(isObjectId)).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(500);
  });
  it('recognises ObjectIds', () => {
    expect(isObjectId('65a1b2c3d4e5f60718293a4b')).toBe(true);
    expect(isObjectId('not-an-id')).toBe(false);
    expect(isObjectId('65a1b2c3d4e5f60718293a4')).toBe(false);
  });
});

describe('billing periods and the tier catalogue', () => {
  it('uses the calendar month for seeded subscriptions', () => {
    expect(calendarMonth(new Date('2026-11-21T10:00:00Z'))).toEqual({
      start: '2026-11-01T00:00:00.000Z',
      end: '2026-12-01T00:00:00.000Z',
    });
  });
  it('rolls an active period forward month by month', () => {
    const period = currentPeriod(
      { currentPeriodStart: '2026-01-01T00:00:00.000Z', currentPeriodEnd: '2026-02-01T00:00:00.000Z' },
      new Date('2026-03-15T00:00:00Z'),
    );
    expect(period).toEqual({ start: '2026-03-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' });
  });
  it('has the default tiers of the local runtime contract', () => {
    const catalogue = parseTierCatalogue(undefined);
    expect(catalogue.tiers.basic).toMatchObject({ priceCents: 1000, monthlyPageCredits: 100 });
    expect(catalogue.tiers.pro).toMatchObject({ priceCents: 5000, monthlyPageCredits: 500 });
    expect(catalogue.importTier).toBe('pro');
    expect(catalogue.overageCentsPerPage).toBe(2);
  });
  it('reads a configured catalogue and rejects an import tier that does not exist', () => {
    const custom = parseTierCatalogue('{"tiers":{"gold":{"priceCents":5000,"monthlyPageCredits":900}},"importTier":"gold"}');
    expect(custom.tiers.gold?.monthlyPageCredits).toBe(900);
    expect(() => parseTierCatalogue('{"tiers":{"gold":{"priceCents":5000,"monthlyPageCredits":900}}}')).toThrow(/importTier pro/);
  });
});

describe('ObjectIds', () => {
  it('carry their creation second and sort by it', async () => {
    const { objectIdAt, newObjectId } = await import('../../lib/ids.ts');
    const early = objectIdAt(new Date('2020-01-01T00:00:00Z'));
    expect(parseInt(early.slice(0, 8), 16)).toBe(Date.UTC(2020, 0, 1) / 1000);
    expect(early < newObjectId()).toBe(true);
    expect(new Set(Array.from({ length: 1000 }, newObjectId)).size).toBe(1000);
  });
});
