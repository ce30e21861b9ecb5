import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { internal } from '../../errors.ts';
import { newObjectId } from '../../ids.ts';
import { logger } from '../../log.ts';
import type { BookText, PageEdit } from '../../ocr/book-text.ts';
import type { BookTextPage } from '../../ocr/pages/page.ts';
import { changedPage, type PageChange } from '../../ocr/pages/store.ts';
import { pageRecord, pageUpdate, stagedAttribute } from './book-text-pages.ts';
import { transact } from './book-text-writes.ts';
import { entities, type OpenPageEdit } from './entities.ts';
import { keys } from './keys.ts';
import { batchGet, failedConditions, ifConditionHolds, oldestBefore, record, type Db } from './table.ts';

/**
 * PATCH's pages, all or nothing (docs/architecture.md, "Edits are all or nothing").
 *
 * An edit whose pages fit in one TransactWriteItems beside the record (at most 100 items, 4 MB) is
 * written in that one transaction: `plannedPages` gives its page writes.
 *
 * A larger edit (up to 2,000 pages of 60,000 characters) is staged, the record staying the authority:
 * 1. the record takes the edit's lock (`pageEdit`) and an OpenPageEdit item is put, in one transaction;
 * 2. each page is put with the page as it was kept on it (`staged.before`), on condition that it is
 *    still the page read, so a concurrent writer's page is never kept as "before";
 * 3. the record's changes commit in one transaction that also removes the lock and the OpenPageEdit.
 * Until 3 the edit can be undone: each page still staged by it is put back as it was (on condition
 * that no one wrote it since), then the lock goes. An undo first marks the lock `undoing`, which the
 * commit's condition refuses, so an edit is either committed or undone, never both. If the writer
 * stops or cannot undo (the table unreachable), the OpenPageEdit stays listed and the sweeper undoes
 * it once no writer can still hold it (`staleEditMs`).
 */

/** What one transaction may carry beside the record, its File, the counters and two text notes. */
export const oneTransaction = { pages: 94, bytes: 3_500_000 } as const;
/** Older than any request (API Gateway 29 s, Lambda 15 min): no writer holds such an edit any more. */
export const staleEditMs = 15 * 60_000;

/** The lock on the record while a staged edit is saved. */
export interface PageEditLock {
  editId: string;
  startedAt: string;
  /** Set by an undo; the commit's condition then fails. */
  undoing?: boolean;
}

interface Staged {
  editId: string;
  before: BookTextPage | null;
}

type StoredPage = BookTextPage & { [stagedAttribute]?: Staged };

/** An item's size, as DynamoDB counts it, roughly: a little over, never under. */
const itemBytes = (item: unknown) => Buffer.byteLength(JSON.stringify(item));

const numbersOf = (pages: PageEdit) => ('replace' in pages ? pages.replace : pages.change).map((p) => p.pageNumber);


/** The pages as stored now, strongly consistent, by number. */
async function storedPages(db: Db, bookTextId: string, numbers: number[]): Promise<Map<number, StoredPage>> {
  const found = await batchGet<StoredPage>(db, numbers.map((n) => keys.bookTextPage(bookTextId, n)), true);
  return new Map(found.map((page) => [page.pageNumber, page]));
}

export type TransactItem = NonNullable<Parameters<typeof transact>[1]['TransactItems']>[number];

/**
 * The page writes of an edit for its one transaction, or undefined when they do not fit (it is then
 * staged). A change's size is that of the page it leaves, so its stored page is read.
 */
export async function plannedPages(db: Db, bookTextId: string, pages: PageEdit, at: string): Promise<TransactItem[] | undefined> {
  const TableName = db.tableName;
  if (numbersOf(pages).length > oneTransaction.pages) return undefined;
  let bytes = 0;
  let writes: TransactItem[];
  if ('replace' in pages) {
    writes = pages.replace.map((page) => {
      const Item = entities.bookTextPage.item(page);
      bytes += itemBytes(Item);
      return { Put: { TableName, Item } };
    });
  } else {
    const stored = await storedPages(db, bookTextId, numbersOf(pages));
    writes = pages.change.map((c) => {
      bytes += itemBytes(entities.bookTextPage.item(changedPage(bookTextId, stored.get(c.pageNumber), c, at)));
      const u = pageUpdate(bookTextId, c, at);
      return {
        Update: {
          TableName,
          Key: keys.bookTextPage(bookTextId, c.pageNumber),
          UpdateExpression: u.expression,
          ExpressionAttributeNames: u.names,
          ExpressionAttributeValues: u.values,
        },
      };
    });
  }
  return bytes <= oneTransaction.bytes ? writes : undefined;
}

/**
 * Runs `work` over `items`, a few at a time (an edit may name 2,000 pages). A failure is thrown only
 * once its batch has settled: an undo must not start while a page write is still on its way.
 */
async function inTurn<T>(items: readonly T[], work: (item: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += 16) {
    const settled = await Promise.allSettled(items.slice(i, i + 16).map(work));
    const failed = settled.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }
}

export function stagedEdits(db: Db) {
  const TableName = db.tableName;

  const openEdit = async (editId: string) => {
    const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.pageEdit(editId), ConsistentRead: true }));
    return Item ? record<OpenPageEdit>(Item) : undefined;
  };

  /**
   * Undoes a staged edit unless it committed: afterwards it is neither half written nor listed.
   * Safe to run again after a failure part way (each step is conditional on what it undoes).
   */
  async function undo(edit: OpenPageEdit): Promise<void> {
    const idIs = { ':id': edit.editId };
    // From here the edit cannot commit (the commit's condition refuses `undoing`).
    const held = await ifConditionHolds(() =>
      db.client.send(
        new UpdateCommand({
          TableName,
          Key: keys.bookText(edit.bookTextId),
          UpdateExpression: 'SET #pe.undoing = :yes',
          ConditionExpression: '#pe.editId = :id',
          ExpressionAttributeNames: { '#pe': 'pageEdit' },
          ExpressionAttributeValues: { ...idIs, ':yes': true },
        }),
      ),
    );
    const ifStillOurs = { ConditionExpression: '#s.editId = :id', ExpressionAttributeNames: { '#s': stagedAttribute }, ExpressionAttributeValues: idIs };
    await inTurn(edit.pageNumbers, async (pageNumber) => {
      const Key = keys.bookTextPage(edit.bookTextId, pageNumber);
      const { Item } = await db.client.send(new GetCommand({ TableName, Key, ConsistentRead: true }));
      const staged = Item?.[stagedAttribute] as Staged | undefined;
      if (staged?.editId !== edit.editId) return; // never written by it, or written by someone since
      // Committed (the record no longer holds it): only the kept "before" goes. Else the page as it was.
      const before = staged.before;
      await ifConditionHolds(() =>
        !held
          ? db.client.send(new UpdateCommand({ TableName, Key, UpdateExpression: 'REMOVE #s', ...ifStillOurs }))
          : before
            ? db.client.send(new PutCommand({ TableName, Item: entities.bookTextPage.item(before), ...ifStillOurs }))
            : db.client.send(new DeleteCommand({ TableName, Key, ...ifStillOurs })),
      );
    });
    if (!held) {
      await db.client.send(new DeleteCommand({ TableName, Key: keys.pageEdit(edit.editId) }));
      return;
    }
    // The lock goes with a new revision: pages put back are newer than any read of the edit's (docs/architecture.md, "Read after write").
    await transact(db, {
      TransactItems: [
        {
          Update: {
            TableName,
            Key: keys.bookText(edit.bookTextId),
            UpdateExpression: 'REMOVE #pe ADD #rev :one',
            ConditionExpression: '#pe.editId = :id',
            ExpressionAttributeNames: { '#pe': 'pageEdit', '#rev': 'rev' },
            ExpressionAttributeValues: { ...idIs, ':one': 1 },
          },
        },
        { Delete: { TableName, Key: keys.pageEdit(edit.editId) } },
      ],
    }).catch((error: unknown) => {
      // Someone else finished the undo meanwhile.
      if (!failedConditions(error)?.includes(0)) throw error;
    });
  }

  /** Takes the record's lock for a staged edit; a lock left by a stopped writer is undone first. */
  async function lock(edit: OpenPageEdit): Promise<void> {
    const take = () =>
      transact(db, {
        TransactItems: [
          {
            Update: {
              TableName,
              Key: keys.bookText(edit.bookTextId),
              UpdateExpression: 'SET #pe = :lock',
              ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#pe)',
              ExpressionAttributeNames: { '#pe': 'pageEdit' },
              ExpressionAttributeValues: { ':lock': { editId: edit.editId, startedAt: edit.startedAt } satisfies PageEditLock },
            },
          },
          { Put: { TableName, Item: entities.pageEdit.item(edit), ConditionExpression: 'attribute_not_exists(pk)' } },
        ],
      });
    for (let attempt = 1; ; attempt++) {
      try {
        return await take();
      } catch (error) {
        if (!failedConditions(error)?.includes(0) || attempt > 1) throw lockRefused(error);
        const { Item } = await db.client.send(new GetCommand({ TableName, Key: keys.bookText(edit.bookTextId), ConsistentRead: true }));
        const held = Item?.pageEdit as PageEditLock | undefined;
        if (!held || Date.parse(held.startedAt) > Date.parse(edit.startedAt) - staleEditMs) throw lockRefused(error);
        const stale = await openEdit(held.editId);
        await undo(stale ?? { editId: held.editId, bookTextId: edit.bookTextId, startedAt: held.startedAt, pageNumbers: [] });
      }
    }
  }

  const lockRefused = (error: unknown) =>
    failedConditions(error)?.includes(0) ? internal('Another edit of this book’s pages is being saved; try again in a moment') : error;

  /** Puts each page with the page it replaces kept on it, on condition that it is still that page. */
  async function stage(bookTextId: string, pages: PageEdit, at: string, editId: string): Promise<void> {
    const numbers = numbersOf(pages);
    const read = await storedPages(db, bookTextId, numbers);
    const entries: [number, BookTextPage | PageChange][] = 'replace' in pages ? pages.replace.map((p) => [p.pageNumber, p]) : pages.change.map((c) => [c.pageNumber, c]);
    await inTurn(entries, async ([pageNumber, given]) => {
      let stored: StoredPage | undefined = read.get(pageNumber);
      for (let attempt = 1; ; attempt++) {
        const before = stored ? pageRecord(stored as unknown as Record<string, unknown>) : null;
        const next = 'replace' in pages ? (given as BookTextPage) : changedPage(bookTextId, before ?? undefined, given as PageChange, at);
        const Item = { ...entities.bookTextPage.item(next), [stagedAttribute]: { editId, before } satisfies Staged };
        const put = new PutCommand({
          TableName,
          Item,
          ...(before
            ? { ConditionExpression: 'attribute_exists(pk) AND #u = :u', ExpressionAttributeNames: { '#u': 'updatedAt' }, ExpressionAttributeValues: { ':u': before.updatedAt } }
            : { ConditionExpression: 'attribute_not_exists(pk)' }),
        });
        if (await ifConditionHolds(() => db.client.send(put))) return;
        // Written meanwhile by someone else: read it again, so "before" is what this edit replaces.
        if (attempt >= 5) throw new Error(`Page ${pageNumber} kept changing while the edit was saved`);
        const { Item: now } = await db.client.send(new GetCommand({ TableName, Key: keys.bookTextPage(bookTextId, pageNumber), ConsistentRead: true }));
        stored = now ? record<StoredPage>(now) : undefined;
      }
    });
  }

  /** After the commit the kept pages are dead weight (twice a page's size): dropped, best effort. */
  async function tidy(edit: OpenPageEdit): Promise<void> {
    try {
      await inTurn(edit.pageNumbers, (pageNumber) =>
        ifConditionHolds(() =>
          db.client.send(
            new UpdateCommand({
              TableName,
              Key: keys.bookTextPage(edit.bookTextId, pageNumber),
              UpdateExpression: 'REMOVE #s',
              ConditionExpression: '#s.editId = :id',
              ExpressionAttributeNames: { '#s': stagedAttribute },
              ExpressionAttributeValues: { ':id': edit.editId },
            }),
          ),
        ),
      );
    } catch (error) {
      // Inert: readers never see `staged`, and no undo acts on a committed edit.
      logger.warn('Tidying a committed page edit failed', { bookTextId: edit.bookTextId, editId: edit.editId, error: error as Error });
    }
  }

  return {
    /**
     * A staged edit: `commit` writes the record's changes in one transaction that must also
     * remove this lock (`commitItems`). Any failure before the commit is undone before it is thrown.
     */
    async save<T>(bookText: BookText, pages: PageEdit, at: string, commit: (lock: PageEditLock) => Promise<T>): Promise<T> {
      const edit: OpenPageEdit = { editId: newObjectId(), bookTextId: bookText.bookTextId, startedAt: at, pageNumbers: numbersOf(pages) };
      await lock(edit);
      let result: T;
      try {
        await stage(bookText.bookTextId, pages, at, edit.editId);
        result = await commit({ editId: edit.editId, startedAt: at });
      } catch (error) {
        try {
          await undo(edit);
        } catch (undoError) {
          // Still listed: the sweeper undoes it (lib/ocr/loose-texts.ts, sweepHalfSavedWrites).
          logger.error('Undoing a failed page edit failed; the sweeper will', { bookTextId: edit.bookTextId, editId: edit.editId, error: undoError as Error });
        }
        throw error;
      }
      await tidy(edit);
      return result;
    },

    /** Undoes the listed staged edits begun before `before` (their writers are gone). */
    async undoStale(before: string, limit: number): Promise<number> {
      const stale = await oldestBefore<OpenPageEdit>(db, keys.openPageEditsIndex, before, limit);
      for (const edit of stale) await undo(edit);
      return stale.length;
    },
  };
}

/**
 * What the commit of a staged edit adds to the record's transaction: the lock goes on condition that
 * it is still this edit's and no undo has begun, and the edit leaves the sweeper's list.
 */
export function commitOfStaged(
  TableName: string,
  lock: PageEditLock | undefined,
): { condition?: string; names: Record<string, string>; values: Record<string, unknown>; items: TransactItem[] } {
  if (!lock) return { names: {}, values: {}, items: [] };
  return {
    condition: '#pageEdit.editId = :editId AND attribute_not_exists(#pageEdit.undoing)',
    names: { '#pageEdit': 'pageEdit' },
    values: { ':editId': lock.editId },
    items: [{ Delete: { TableName, Key: keys.pageEdit(lock.editId) } }],
  };
}
