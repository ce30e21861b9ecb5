import { describe, expect, it } from 'vitest';
import { setFields } from '../../lib/adapters/dynamo/book-text-item.ts';
import { entities } from '../../lib/adapters/dynamo/entities.ts';
import { entityNames } from '../../lib/adapters/dynamo/entity.ts';
import { Update } from '../../lib/adapters/dynamo/update-expression.ts';
import { tokenHash } from '../../lib/notifications/devices.ts';
import type { Notification } from '../../lib/notifications/notification.ts';
import { newBookText, type BookText } from '../../lib/ocr/book-text.ts';

const at = '2026-01-02T03:04:05.000Z';
const bookText = newBookText(
  { bookTextId: 'bt1', jobId: 'j1', fileId: 'f1', userId: 'u1', fileName: 'Ärabic Grammar.pdf', status: 'pending', language: 'ar', tags: [], categories: [], visibility: 'public', pageCount: 42, metadata: {} },
  at,
);
const notification: Notification = { notificationId: 'n1', recipientId: 'r1', actorId: null, type: 'new_post', title: 't', body: 'b', post: null, comment: null, isRead: false, readAt: null, createdAt: at, updatedAt: at, version: 0, seq: 7 };

/** One record per entity; the type makes a new declaration add its sample here. */
const samples: { [E in keyof typeof entities]: Parameters<(typeof entities)[E]['item']>[0] } = {
  user: { userId: 'u1', username: 'u', email: 'u@example.com', role: 'member' } as never,
  subscription: { userId: 'u1', tier: 'basic', status: 'active' } as never,
  creatorSubscription: { userId: 'u1', creatorId: 'c1' } as never,
  usagePeriod: { userId: 'u1', periodStart: at, pagesUsed: 3 },
  inbox: { recipientId: 'r1' },
  notification,
  deviceToken: { userId: 'u1', token: 'tok', platform: 'ios', active: true, endpointId: null, createdAt: at, updatedAt: at },
  book: { bookId: 'b1', title: 't' } as never,
  line: { bookId: 'b1', lineId: 'l1', arabic: 'a', english: '', commentary: '', rootwords: '' },
  bookImport: { importKey: 'ik', bookId: 'b1', generation: 0, state: 'importing', startedAt: at },
  audioFiles: { bookId: 'b1', voice: 'v', shard: '0a' },
  file: { fileId: 'f1', userId: 'u1' } as never,
  bookText,
  bookTextPage: { bookTextId: 'bt1', pageNumber: 3 } as never,
  pageReread: { rereadId: 'r1', bookTextId: 'bt1', pageNumber: 3, layout: 'auto', language: 'ar', requestedBy: 'u1', requestedAt: at },
  pageEdit: { editId: 'e1', bookTextId: 'bt1', startedAt: at, pageNumbers: [1, 3] },
  looseText: { jobId: 'j1', version: 'v1', at },
  ocrJob: { jobId: 'j1', bookTextId: 'bt1' },
  upload: { uploadId: 'up1', userId: 'u1', createdAt: at, jobId: null } as never,
  usageLog: { jobId: 'j1', createdAt: at, paymentStatus: 'pending' } as never,
  owedUsage: { jobId: 'j1', bookTextId: 'bt1', userId: 'u1', pages: 4, since: at },
  invoice: { usageId: 'us1', userId: 'u1', jobId: 'j1', pages: 2, amountCents: 5, description: 'd', createdAt: at, invoiceId: 'in1', status: 'open' },
  announcement: { announcementId: 'an1', title: 't', body: 'b', createdBy: 'u1', createdAt: at },
  announcementShard: { announcementId: 'an1', shard: 3, step: 2, after: 'u9', nextSent: true, done: false, notified: 1000, updatedAt: at },
  pushRecord: { userId: 'u1', token: 'tok', platform: 'android', notificationId: 'n1', type: 'ocr_completed', title: 't', body: 'b', data: { jobId: 'j1', bookTextId: 'bt1' }, sentAt: at },
  stripeEvent: { eventId: 'ev1', type: 't', processedAt: at, ttl: 1 },
  audioJob: { _id: 'a1', createdAt: at } as never,
  audioJobChunk: { jobId: 'a1', chunk: 2, lines: 20, ttl: 1 },
};

/** The attributes an update expression sets (names and values of `#n = :v` pairs). */
function setsOf(u: Update): Record<string, unknown> {
  const sets = u.expression.replace(/^SET /, '').split(' REMOVE ')[0]!.split(', ');
  return Object.fromEntries(sets.map((s) => s.split(' = ')).map(([name, value]) => [u.names[name!], u.values[value!]]));
}

describe('entities', () => {
  it('declares every entity name once', () => {
    expect(Object.values(entities).map((e) => e.name).sort()).toEqual([...entityNames].sort());
  });

  it.each(Object.keys(samples) as (keyof typeof entities)[])('%s: the item carries its keys, index attributes, entity name and record', (name) => {
    const declared = entities[name] as unknown as { name: string; key(r: unknown): object; indexes(r: unknown): object; item(r: unknown): object };
    const record = samples[name];
    const item = declared.item(record);
    expect(item).toEqual({ ...declared.key(record), ...declared.indexes(record), entity: declared.name, ...record });
    expect(item).toMatchObject({ pk: expect.any(String), sk: expect.any(String), entity: declared.name });
  });

  it('derives the index attributes from the record', () => {
    expect(entities.bookText.indexes(bookText)).toEqual({
      gsi1pk: 'OWNER#u1',
      gsi1sk: `${at}#bt1`,
      gsi2pk: 'OWNER#u1#pending',
      gsi2sk: `${at}#bt1`,
      catalogue: 'CATALOGUE#public',
      byDate: `${at}#bt1`,
      byName: 'ärabic grammar.pdf#bt1',
      byPages: '0000000042#bt1',
    });
    expect(entities.deviceToken.indexes(samples.deviceToken)).toEqual({ gsi1pk: `DEVICE#${tokenHash('tok')}`, gsi1sk: 'u1' });
    expect(entities.bookImport.indexes(samples.bookImport)).toEqual({ gsi2pk: 'OPENIMPORTS', gsi2sk: `${at}#ik` });
    expect(entities.upload.indexes(samples.upload)).toEqual({ gsi2pk: 'UNCLAIMEDUPLOADS', gsi2sk: `${at}#up1` });
    expect(entities.audioJob.indexes(samples.audioJob)).toEqual({ gsi1pk: 'AUDIOJOBS', gsi1sk: `${at}#a1` });
  });

  it('leaves a sparse index out when the record is not in it', () => {
    expect(entities.notification.item(notification)).toMatchObject({ gsi1pk: 'INBOX#r1', gsi1sk: '000000000007', gsi2pk: 'UNREAD#r1', gsi2sk: 'n1' });
    expect(entities.notification.item({ ...notification, isRead: true })).not.toHaveProperty('gsi2pk');
    expect(entities.usageLog.item(samples.usageLog)).toMatchObject({ gsi1pk: 'INVOICING#PENDING', gsi1sk: `${at}#j1` });
    expect(entities.usageLog.item({ ...samples.usageLog, paymentStatus: 'not_required' })).not.toHaveProperty('gsi1pk');
    // Owed usage shares the job's partition with its claim and usage log, and gsi1 with the outbox (the billing worker's one index).
    expect(entities.owedUsage.item(samples.owedUsage)).toMatchObject({ pk: 'OCRJOB#j1', sk: 'OWED', gsi1pk: 'USAGE#OWED', gsi1sk: `${at}#j1` });
    // Issue 29: the sweeper's lists of open jobs. An OCR job is in it once queued (an orphan result's claim never is).
    const queued = { jobId: 'j1', bookTextId: 'bt1', createdAt: at, queued: {} as never };
    expect(entities.ocrJob.item(queued)).toMatchObject({ gsi2pk: 'OPENOCRJOBS', gsi2sk: `${at}#j1` });
    expect(entities.ocrJob.item(samples.ocrJob)).not.toHaveProperty('gsi2pk');
    const audioJob = { ...samples.audioJob, status: 'pending' } as never;
    expect(entities.audioJob.item(audioJob)).toMatchObject({ gsi1pk: 'AUDIOJOBS', gsi2pk: 'OPENAUDIOJOBS', gsi2sk: `${at}#a1` });
    expect(entities.audioJob.item({ ...(audioJob as object), status: 'completed' } as never)).not.toHaveProperty('gsi2pk');
  });

  const changes: Partial<BookText>[] = [
    { visibility: 'private' },
    { fileName: 'another name' },
    { fileName: null },
    { pageCount: 1234 },
    { status: 'completed' },
    { status: 'processing', pageCount: 9, fileName: 'B', visibility: 'private', language: 'en' },
  ];
  it.each(changes)('a BookText update of %j moves its index attributes as the put derives them', (change) => {
    const updated = { ...entities.bookText.item(bookText), ...setsOf(setFields(new Update(), bookText, change)) };
    expect(updated).toEqual(entities.bookText.item({ ...bookText, ...change }));
  });
});
