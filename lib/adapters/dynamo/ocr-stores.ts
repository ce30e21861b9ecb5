import { dynamoBookTextStore } from './book-texts.ts';
import { dynamoPageStore } from './book-text-pages.ts';
import { dynamoCatalogueStore } from './catalogue.ts';
import { dynamoOcrJobStore } from './ocr-jobs.ts';
import { dynamoRereadStore } from './rereads.ts';
import type { Db } from './table.ts';

/** The stores of lib/ocr over one table: each part of the domain gets its own port. */
export function dynamoOcrStores(db: Db) {
  return {
    bookTexts: dynamoBookTextStore(db),
    ocrJobs: dynamoOcrJobStore(db),
    pages: dynamoPageStore(db),
    catalogue: dynamoCatalogueStore(db),
    rereads: dynamoRereadStore(db),
  };
}

export type OcrStores = ReturnType<typeof dynamoOcrStores>;
