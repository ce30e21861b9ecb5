import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { entities } from '../../lib/adapters/dynamo/entities.ts';
import { decodeStreamRecords, indexedEntities, passesIndexerFilter } from '../../lib/adapters/dynamo/stream-changes.ts';
import { newBookText, type BookText } from '../../lib/ocr/book-text.ts';
import { newPage } from '../../lib/ocr/pages/page.ts';

/** Issue 17: the table's stream records as the search index's changes (lib/adapters/dynamo/stream-changes.ts). */

const at = '2026-03-01T00:00:00.000Z';
type Image = NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;

const book = (fields: Partial<BookText> = {}): BookText =>
  newBookText({ bookTextId: 'bt1', jobId: 'job1', fileId: 'f1', userId: 'u1', fileName: 'a.pdf', status: 'processing', ...fields }, at);
const bookImage = (fields: Partial<BookText> = {}) => marshall(entities.bookText.item(book(fields)), { removeUndefinedValues: true }) as Image;
const pageImage = (pageNumber: number, text = 'words') => marshall(entities.bookTextPage.item(newPage('bt1', pageNumber, { text }, at))) as Image;

let seq = 0;
function record(eventName: 'INSERT' | 'MODIFY' | 'REMOVE', images: { old?: Image; new?: Image }): DynamoDBRecord {
  return {
    eventID: `e${++seq}`,
    eventName,
    eventSource: 'aws:dynamodb',
    dynamodb: { SequenceNumber: String(seq).padStart(21, '0'), OldImage: images.old, NewImage: images.new, StreamViewType: 'NEW_AND_OLD_IMAGES' },
  };
}

const quiet = () => {
  const ignored: string[] = [];
  return { ignored, log: (reason: string) => void ignored.push(reason) };
};
const decode = (...records: DynamoDBRecord[]) => {
  const { ignored, log } = quiet();
  return { changes: decodeStreamRecords(records, log), ignored };
};

describe('decodeStreamRecords', () => {
  it('names the page of every BookTextPage insert, modification and removal', () => {
    const { changes, ignored } = decode(
      record('INSERT', { new: pageImage(0) }),
      record('MODIFY', { old: pageImage(7, 'before'), new: pageImage(7, 'after') }),
      record('MODIFY', { old: pageImage(8), new: pageImage(8) }),
      record('REMOVE', { old: pageImage(9) }),
    );
    expect(changes).toEqual([
      { kind: 'page', bookTextId: 'bt1', pageNumber: 0 },
      { kind: 'page', bookTextId: 'bt1', pageNumber: 7 },
      { kind: 'page', bookTextId: 'bt1', pageNumber: 8 },
      { kind: 'page', bookTextId: 'bt1', pageNumber: 9 },
    ]);
    expect(ignored).toEqual([]);
  });

  it('names a BookText when it is inserted or removed, or a field its index entries carry changes', () => {
    const change = { kind: 'bookText', bookTextId: 'bt1' };
    expect(decode(record('INSERT', { new: bookImage() })).changes).toEqual([change]);
    expect(decode(record('REMOVE', { old: bookImage() })).changes).toEqual([change]);
    for (const fields of [{ visibility: 'public' }, { status: 'completed' }, { language: 'ur' }, { userId: 'u2' }] as const) {
      expect(decode(record('MODIFY', { old: bookImage(), new: bookImage(fields) })).changes, JSON.stringify(fields)).toEqual([change]);
    }
  });

  it('names no change when no field the index holds changes (progress, text, dates)', () => {
    const { changes, ignored } = decode(
      record('MODIFY', { old: bookImage(), new: bookImage({ pagesProcessed: 4, extractedText: 'new text', updatedAt: '2026-03-02T00:00:00.000Z' }) }),
    );
    expect(changes).toEqual([]);
    expect(ignored).toEqual([]);
  });

  it('names only the listing when a field of the catalogue listing alone changes (tags, categories, name, page count)', () => {
    for (const change of [{ tags: ['x'] }, { categories: ['law'] }, { fileName: 'b.pdf' }, { pageCount: 12 }]) {
      const { changes } = decode(record('MODIFY', { old: bookImage(), new: bookImage(change) }));
      expect(changes, JSON.stringify(change)).toEqual([{ kind: 'bookText', bookTextId: 'bt1', listingOnly: true }]);
    }
    // With a field the pages carry too, the whole book.
    expect(decode(record('MODIFY', { old: bookImage(), new: bookImage({ tags: ['x'], visibility: 'public' }) })).changes).toEqual([{ kind: 'bookText', bookTextId: 'bt1' }]);
  });

  it('names the book when a modification comes without both images (another view type)', () => {
    expect(decode(record('MODIFY', { new: bookImage() })).changes).toEqual([{ kind: 'bookText', bookTextId: 'bt1' }]);
  });

  it('ignores every other entity, silently', () => {
    const other = marshall({ pk: 'USER#u1', sk: 'PROFILE', entity: 'User', userId: 'u1', bookTextId: 'bt1', pageNumber: 1 }) as Image;
    const { changes, ignored } = decode(record('INSERT', { new: other }), record('MODIFY', { old: other, new: other }), record('REMOVE', { old: other }));
    expect(changes).toEqual([]);
    expect(ignored).toEqual([]);
  });

  it('ignores malformed and hostile records with a warning, never throwing, and keeps decoding the rest', () => {
    const page = pageImage(2);
    const hostile: DynamoDBRecord[] = [
      record('INSERT', { new: { ...page, pageNumber: { S: '2' } } }),
      record('INSERT', { new: { ...page, pageNumber: { N: '-1' } } }),
      record('INSERT', { new: { ...page, pageNumber: { N: '1.5' } } }),
      record('INSERT', { new: { ...page, pageNumber: { N: '100000' } } }),
      record('INSERT', { new: { ...page, pageNumber: { N: 'NaN' } } }),
      record('INSERT', { new: { ...page, pageNumber: { N: '1e400' } } }),
      record('INSERT', { new: { ...page, bookTextId: { N: '1' } } }),
      record('INSERT', { new: { ...page, bookTextId: { S: '' } } }),
      record('INSERT', { new: Object.fromEntries(Object.entries(page).filter(([name]) => name !== 'bookTextId')) }),
      record('INSERT', { new: { ...page, pageNumber: { X: 1 } as never } }),
      record('INSERT', { new: { ...page, pageNumber: 'two' as never } }),
      record('INSERT', { new: { ...page, pageNumber: null as never } }),
      record('REMOVE', { old: { ...bookImage(), bookTextId: { NULL: true } } }),
      { ...record('INSERT', { new: page }), eventName: 'UPSERT' as never },
      { eventID: 'x', eventName: 'INSERT' },
      { eventID: 'y', eventName: 'INSERT', dynamodb: 'nope' as never },
      { eventID: 'z', eventName: 'INSERT', dynamodb: { NewImage: 'nope' as never } },
      null as never,
    ];
    const { changes, ignored } = decode(...hostile, record('INSERT', { new: pageImage(5) }));
    expect(changes).toEqual([{ kind: 'page', bookTextId: 'bt1', pageNumber: 5 }]);
    expect(ignored).toHaveLength(hostile.length);
    expect(ignored.join(' ')).not.toContain('words');
  });

  it('never converts the attributes it does not read (a page’s text, client metadata)', () => {
    // A number DynamoDB stores but JavaScript cannot hold (unmarshall throws on it) in an attribute decoding never reads.
    const image = { ...bookImage(), metadata: { M: { big: { N: '123456789012345678901234567890' } } } };
    expect(decode(record('MODIFY', { old: bookImage(), new: { ...image, visibility: { S: 'public' } } })).changes).toEqual([
      { kind: 'bookText', bookTextId: 'bt1' },
    ]);
  });
});

describe('passesIndexerFilter', () => {
  it('passes BookText and BookTextPage records by their entity after the change or, for a removal, before it', () => {
    expect(indexedEntities).toEqual(['BookText', 'BookTextPage']);
    expect(passesIndexerFilter(record('INSERT', { new: pageImage(0) }))).toBe(true);
    expect(passesIndexerFilter(record('REMOVE', { old: bookImage() }))).toBe(true);
    expect(passesIndexerFilter(record('INSERT', { new: marshall({ entity: 'User' }) as Image }))).toBe(false);
    expect(passesIndexerFilter(record('INSERT', { new: { entity: { N: '1' } } as Image }))).toBe(false);
    expect(passesIndexerFilter({ eventName: 'INSERT' })).toBe(false);
  });
});
