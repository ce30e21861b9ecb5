import type { BookText, BookTextEdit, BookTextList, BookTextStore, FileRecord, LooseText, OcrStatus, TextPlacement, TextWrite } from '../../../lib/ocr/book-text.ts';
import { catalogueSortKeys, compareSortKeys } from '../../../lib/ocr/catalogue/sort-keys.ts';
import type { CatalogueQuery, CatalogueStore } from '../../../lib/ocr/catalogue/store.ts';
import type { OcrJobStore, PageProgress, ResultUpdate, UsageOutcome } from '../../../lib/ocr/jobs/store.ts';
import { changedPage, type PageChange, type PageStore } from '../../../lib/ocr/pages/store.ts';
import type { BookTextPage } from '../../../lib/ocr/pages/page.ts';
import type { PendingReread, RereadStore } from '../../../lib/ocr/pages/reread.ts';
import { maxWindow } from '../../../lib/paging.ts';
import { copiesOf, copy } from './copy.ts';
import { FakeOwedUsage } from './owed-usage.ts';

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The catalogue's sort keys (lib/ocr/catalogue/sort-keys.ts), by order. */
const sortKey: Record<CatalogueQuery['order'], (b: BookText) => string> = {
  date: (b) => catalogueSortKeys(b).byDate,
  name: (b) => catalogueSortKeys(b).byName,
  pages: (b) => catalogueSortKeys(b).byPages,
};

/**
 * lib/ocr's four stores in memory (lib/adapters/dynamo/ocr-stores.ts): BookTexts, their job claims, Files and
 * page items. Updates of a BookText that is not there fail, as the adapter's `attribute_exists`
 * condition does; listings are counted within the listing window as the adapter counts them.
 */
export class FakeOcrStores implements BookTextStore, OcrJobStore, PageStore, CatalogueStore, RereadStore {
  readonly bookTexts = new Map<string, BookText>();
  readonly jobs = new Map<string, string>();
  readonly files = new Map<string, FileRecord>();
  /** By BookText, then page number. */
  readonly pageItems = new Map<string, Map<number, BookTextPage>>();
  /** Pending rereads by `<bookTextId>#<pageNumber>`. */
  readonly rereadItems = new Map<string, PendingReread>();
  /** Text objects that may be strays, by `<jobId>/<version>` (lib/ocr/loose-texts.ts). */
  readonly looseTextNotes = new Map<string, LooseText>();

  /** `owed`: where a completion owes its usage, with its status (the adapter's one transaction). */
  constructor(readonly owed: FakeOwedUsage = new FakeOwedUsage()) {}

  private current(bookTextId: string): BookText {
    const found = this.bookTexts.get(bookTextId);
    if (!found) throw new Error(`BookText ${bookTextId} is not stored (the adapter's condition fails)`);
    return found;
  }

  private pagesOf(bookTextId: string): Map<number, BookTextPage> {
    let pages = this.pageItems.get(bookTextId);
    if (!pages) this.pageItems.set(bookTextId, (pages = new Map()));
    return pages;
  }

  /**
   * Replaces the record's book-level text; reports the stored text it replaced. As the adapter's
   * transaction does, the new text's note goes and the replaced one's is made in the same write.
   */
  private placeText(record: BookText, text: TextPlacement, at: string): TextWrite {
    const replaced = record.storedText;
    record.extractedText = text.extractedText;
    if (text.stored) record.storedText = copy(text.stored);
    else delete record.storedText;
    if (text.stored) this.looseTextNotes.delete(`${record.jobId}/${text.stored.version}`);
    if (replaced) this.looseTextNotes.set(`${record.jobId}/${replaced.version}`, { jobId: record.jobId, version: replaced.version, at });
    return { replaced: replaced && copy(replaced) };
  }

  async noteLooseText(text: LooseText) {
    this.looseTextNotes.set(`${text.jobId}/${text.version}`, copy(text));
  }

  async forgetLooseText(text: Pick<LooseText, 'jobId' | 'version'>) {
    this.looseTextNotes.delete(`${text.jobId}/${text.version}`);
  }

  async looseTexts(before: string, limit: number) {
    return [...this.looseTextNotes.values()]
      .filter((note) => note.at < before)
      .sort((a, b) => compare(a.at, b.at))
      .slice(0, limit)
      .map(copy);
  }

  /** Every edit here is one step (edit below), so none is ever left part way. */
  async undoStaleEdits() {
    return 0;
  }

  async create(bookText: BookText, file?: FileRecord) {
    if (this.jobs.has(bookText.jobId) || this.bookTexts.has(bookText.bookTextId) || (file && this.files.has(file.fileId))) return false;
    this.jobs.set(bookText.jobId, bookText.bookTextId);
    this.bookTexts.set(bookText.bookTextId, { ...copy(bookText), rev: 1 });
    if (file) this.files.set(file.fileId, copy(file));
    return true;
  }

  async byJobId(jobId: string) {
    const bookTextId = this.jobs.get(jobId);
    return bookTextId === undefined ? undefined : this.get(bookTextId);
  }

  async get(bookTextId: string) {
    const found = this.bookTexts.get(bookTextId);
    return found && copy(found);
  }

  async getMany(bookTextIds: readonly string[]) {
    const found = new Map<string, BookText>();
    for (const id of bookTextIds) {
      const bookText = this.bookTexts.get(id);
      if (bookText) found.set(id, copy(bookText));
    }
    return found;
  }

  async getFile(fileId: string) {
    const found = this.files.get(fileId);
    return found && copy(found);
  }

  async putPages(pages: BookTextPage[]) {
    for (const page of pages) this.pagesOf(page.bookTextId).set(page.pageNumber, copy(page));
  }

  async pages(bookTextId: string) {
    return [...(this.pageItems.get(bookTextId)?.values() ?? [])].sort((a, b) => a.pageNumber - b.pageNumber).map(copy);
  }

  async pagesAt(pages: readonly { bookTextId: string; pageNumber: number }[]) {
    return pages.flatMap((p) => {
      const page = this.pageItems.get(p.bookTextId)?.get(p.pageNumber);
      return page ? [copy(page)] : [];
    });
  }

  async recordPage(book: BookText, progress: PageProgress) {
    const record = this.current(book.bookTextId);
    record.status = 'processing';
    record.rev = (record.rev ?? 0) + 1;
    if (progress.pageCount) record.pageCount = progress.pageCount;
    record.updatedAt = progress.at;
    record.lastPageUpdate = progress.at;
    if (progress.pageError) record.pageErrors = { ...record.pageErrors, [String(progress.pageError.pageNumber)]: copy(progress.pageError) };
    // Only ever raised: page callbacks land out of order.
    if (progress.pagesProcessed !== undefined && (record.pagesProcessed === undefined || record.pagesProcessed < progress.pagesProcessed)) {
      record.pagesProcessed = progress.pagesProcessed;
    }
  }

  async applyResult(book: BookText, r: ResultUpdate) {
    const record = this.current(book.bookTextId);
    if (r.status !== undefined) record.status = r.status;
    if (r.status === 'completed') record.completedAt = r.at;
    if (r.language !== undefined) record.language = r.language;
    if (r.pageCount !== undefined) record.pageCount = r.pageCount;
    if (r.error !== undefined) record.error = r.error;
    if (r.processingTime !== undefined) record.processingTime = r.processingTime;
    record.updatedAt = r.at;
    record.rev = (record.rev ?? 0) + 1;
    const written = r.text ? this.placeText(record, r.text, r.at) : { replaced: undefined };
    if (r.owed) this.owed.owe(r.owed);
    if (r.metadata) {
      for (const [name, value] of Object.entries(r.metadata)) if (name !== '') record.metadata[name] = copy(value);
    }
    return written;
  }

  async setUsage(bookTextId: string, outcome: UsageOutcome, at: string) {
    const record = this.current(bookTextId);
    record.updatedAt = at;
    record.rev = (record.rev ?? 0) + 1;
    if ('usageInfo' in outcome) {
      record.usageInfo = copy(outcome.usageInfo);
      delete record.usageError;
    } else {
      record.usageError = outcome.usageError;
    }
  }

  async getFiles(fileIds: readonly string[]) {
    return copiesOf(this.files, fileIds);
  }

  async pageWindow(bookTextId: string, offset: number, limit: number) {
    const all = await this.pages(bookTextId);
    return { total: all.length, pages: all.slice(offset, offset + limit) };
  }

  async confidences(bookTextId: string) {
    return (await this.pages(bookTextId)).map((p) => ({ pageNumber: p.pageNumber, confidence: p.confidence ?? null }));
  }

  async updatePages(bookTextId: string, changes: PageChange[], at: string) {
    const pages = this.pagesOf(bookTextId);
    for (const c of changes) pages.set(c.pageNumber, changedPage(bookTextId, pages.get(c.pageNumber), c, at));
  }

  /** All or nothing, as the adapter's transaction (or its staged edit's undo): a write that throws changes nothing. */
  async edit(book: BookText, e: BookTextEdit) {
    const storedFile = this.files.get(book.fileId);
    const saved = { record: copy(this.current(book.bookTextId)), pages: new Map(this.pagesOf(book.bookTextId)), file: storedFile && copy(storedFile), notes: new Map(this.looseTextNotes) };
    try {
      return await this.editInPlace(book, e);
    } catch (error) {
      this.bookTexts.set(book.bookTextId, saved.record);
      this.pageItems.set(book.bookTextId, saved.pages);
      if (saved.file) this.files.set(book.fileId, saved.file);
      this.looseTextNotes.clear();
      for (const [key, note] of saved.notes) this.looseTextNotes.set(key, note);
      throw error;
    }
  }

  private async editInPlace(book: BookText, e: BookTextEdit) {
    const record = this.current(book.bookTextId);
    const file = e.file && (e.file.fileName !== undefined || e.file.author !== undefined) ? e.file : undefined;
    const storedFile = file ? this.files.get(book.fileId) : undefined;
    // All or nothing: the File must be there for the transaction to write either.
    if (file && !storedFile) throw new Error(`File ${book.fileId} is not stored (the adapter's transaction fails)`);
    if (e.pages && 'replace' in e.pages) await this.putPages(e.pages.replace);
    if (e.pages && 'change' in e.pages) await this.updatePages(book.bookTextId, e.pages.change, e.at);
    if (e.fileName !== undefined) record.fileName = e.fileName;
    if (e.language !== undefined) record.language = e.language;
    if (e.tags !== undefined) record.tags = [...e.tags];
    if (e.categories !== undefined) record.categories = [...e.categories];
    if (e.visibility !== undefined) record.visibility = e.visibility;
    record.updatedAt = e.at;
    record.rev = (record.rev ?? 0) + 1;
    if (storedFile && file) {
      if (file.fileName !== undefined) storedFile.fileName = file.fileName;
      if (file.author !== undefined) storedFile.author = file.author;
      storedFile.updatedAt = e.at;
    }
    return e.text ? this.placeText(record, e.text, e.at) : { replaced: undefined };
  }

  async list(query: CatalogueQuery): Promise<BookTextList> {
    const { view } = query;
    const visible = (b: BookText) =>
      view.kind === 'all' || b.visibility === 'public' || (view.kind === 'publicAndOwn' && b.userId === view.ownerId);
    const key = sortKey[query.order];
    const sorted = [...this.bookTexts.values()].filter(visible).sort((a, b) => (query.descending ? -1 : 1) * compareSortKeys(key(a), key(b)));
    return { total: sorted.length, items: sorted.slice(query.offset, query.offset + query.limit).map(copy) };
  }

  async jobsOf(userId: string, options: { status?: OcrStatus; limit: number; offset: number }) {
    const key = sortKey.date;
    const own = [...this.bookTexts.values()]
      .filter((b) => b.userId === userId && (!options.status || b.status === options.status))
      .sort((a, b) => compare(key(b), key(a)));
    // The adapter counts and reads within the listing window.
    const window = own.slice(0, Math.min(options.offset + options.limit, maxWindow));
    return { total: Math.min(own.length, maxWindow), items: window.slice(options.offset).map(copy) };
  }

  /** The four ports over this one store, as the functions wire them (lib/adapters/dynamo/ocr-stores.ts). */
  async claim(reread: PendingReread, staleBefore: string) {
    const key = `${reread.bookTextId}#${reread.pageNumber}`;
    const pending = this.rereadItems.get(key);
    if (pending && pending.requestedAt >= staleBefore) return copy(pending);
    this.rereadItems.set(key, copy(reread));
    return copy(reread);
  }

  async settle(bookTextId: string, pageNumber: number, rereadId: string) {
    const key = `${bookTextId}#${pageNumber}`;
    if (this.rereadItems.get(key)?.rereadId !== rereadId) return false;
    this.rereadItems.delete(key);
    return true;
  }

  ports() {
    return { bookTexts: this as BookTextStore, ocrJobs: this as OcrJobStore, pages: this as PageStore, catalogue: this as CatalogueStore, rereads: this as RereadStore };
  }
}
