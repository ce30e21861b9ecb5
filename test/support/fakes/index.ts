import type { AccessDeps } from '../../../lib/audio/access.ts';
import { defaultTierCatalogue, type TierCatalogue } from '../../../lib/billing/tiers.ts';
import type { InvoicingDeps } from '../../../lib/billing/invoicing.ts';
import type { OwedUsageDeps } from '../../../lib/billing/owed-usage.ts';
import type { CallbackDeps } from '../../../lib/ocr/jobs/callbacks.ts';
import type { BookEditDeps } from '../../../lib/ocr/pages/edit.ts';
import { FakeAudioFiles } from './audio-files.ts';
import { FakeAudioJobs } from './audio-jobs.ts';
import { FakeBilling, FakeInvoiceOutbox } from './billing.ts';
import { FakeBookStore } from './book-store.ts';
import { fixedClock } from './clock.ts';
import { FakeObjects } from './objects.ts';
import { FakeOcrStores } from './ocr-stores.ts';
import { FakeOwedUsage } from './owed-usage.ts';
import { FakeDeviceStore, FakeNotificationStore, FakePush, fakeInbox } from './notifications.ts';
import { FakeQueue } from './queue.ts';
import { FakeSearchEngine } from './search-engine.ts';
import { indexWrites } from '../../../lib/search/read-after-write.ts';
import { FakeSpeech } from './speech.ts';
import { FakeSubscriptionStore } from './subscription-store.ts';
import { UsagePeriods } from './usage-periods.ts';
import { FakeUsageStore } from './usage-store.ts';
import { FakeUserStore } from './user-store.ts';

/**
 * In-memory fakes of the domain's ports (lib/), one file each. Each implements its port's own
 * interface, so a change to a port fails the type-check here first. Domain tests with them run in
 * milliseconds and touch no embedded store.
 */
export { FakeAudioFiles, FakeAudioJobs, FakeBilling, FakeBookStore, FakeInvoiceOutbox, FakeObjects, FakeOcrStores, FakeOwedUsage, FakeQueue, FakeSpeech };
export { FakeSubscriptionStore, FakeUsageStore, FakeUserStore, UsagePeriods, fixedClock };
export { FakeDeviceStore, FakeNotificationStore, FakePush, fakeInbox };
export type { FixedClock } from './clock.ts';

/** Every fake, wired as the functions wire the adapters (one table: the page counters are shared). */
export function fakeWorld(options: { now?: string; tierCatalogue?: TierCatalogue } = {}) {
  const clock = fixedClock(options.now);
  const periods = new UsagePeriods();
  const usage = new FakeUsageStore(periods);
  const owedUsage = new FakeOwedUsage();
  const world = {
    clock,
    now: clock.now,
    tierCatalogue: options.tierCatalogue ?? defaultTierCatalogue,
    users: new FakeUserStore(),
    subscriptions: new FakeSubscriptionStore(periods),
    usage,
    outbox: new FakeInvoiceOutbox(usage),
    billing: new FakeBilling(),
    owedUsage,
    ocr: new FakeOcrStores(owedUsage),
    uploads: new FakeObjects('https://uploads.test', clock.now),
    audio: new FakeObjects('https://audio.test', clock.now),
    audioFiles: new FakeAudioFiles(),
    books: new FakeBookStore(),
    queue: new FakeQueue(),
    speech: new FakeSpeech(),
    search: new FakeSearchEngine(),
    inbox: fakeInbox(clock.now),
  };
  // The write path's index (read after write) over the world's engine and stores.
  const index = () => indexWrites({ engine: world.search, ...world.ocr.ports() });
  return {
    ...world,
    index,
    /** The deps of the OCR callbacks (lib/ocr/jobs/callbacks.ts). */
    callbackDeps: (): CallbackDeps => ({ ...world.ocr.ports(), owedUsage, uploads: world.uploads, index: index(), inbox: world.inbox.deps, now: clock.now, users: world.users, subscriptions: world.subscriptions, usage, tierCatalogue: world.tierCatalogue }),
    /** The deps of PATCH /ocr/books/:bookTextId (lib/ocr/pages/edit.ts). */
    editDeps: (): BookEditDeps => ({ ...world.ocr.ports(), uploads: world.uploads, index: index(), now: clock.now }),
    /** The deps of the audio read rule (lib/audio/access.ts). */
    accessDeps: (): AccessDeps => ({ books: world.books, users: world.users, subscriptions: world.subscriptions }),
    /** The deps of the billing worker (lib/billing/invoicing.ts). */
    invoicingDeps: (): InvoicingDeps => ({ outbox: world.outbox, users: world.users, billing: async () => world.billing }),
    /** The deps of the billing worker's reconciler of owed usage (lib/billing/owed-usage.ts). */
    owedUsageDeps: (): OwedUsageDeps => ({ owedUsage, ocrJobs: world.ocr, users: world.users, subscriptions: world.subscriptions, usage, tierCatalogue: world.tierCatalogue }),
  };
}

export type FakeWorld = ReturnType<typeof fakeWorld>;
