import { describe, expect, it } from 'vitest';
import { calendarMonth } from '../../lib/billing/subscriptions.ts';
import { parseTierCatalogue } from '../../lib/billing/tiers.ts';
import { seed } from '../../infra/local/seed.ts';
import { testStores } from '../support/stores.ts';

const stores = testStores();
const options = (now = new Date()) => ({ now, tierCatalogue: parseTierCatalogue(undefined), issueToken: async (id: string) => `token-${id}` });

describe('seed file', () => {
  it('stores users with roles, subscriptions with the pages already used, and creator subscriptions', async () => {
    const now = new Date('2026-11-21T12:00:00Z');
    const out = await seed(
      stores,
      {
        users: [
          {
            key: 'ed',
            username: 'ed',
            email: 'ed@example.com',
            role: 'editor',
            subscription: { tier: 'pro', status: 'active', pagesUsed: 7 },
            creatorSubscriptions: [{ creator: 'cara', tier: 'gold' }],
          },
          { key: 'cara', username: 'cara', subscription: { tier: 'basic', status: 'past_due' } },
        ],
        books: [
          { key: 'b1', owner: 'cara', title: 'Private', visibility: 'private', accessModel: 'creator_subscription', requiredSubscriptionTier: 'gold' },
        ],
      },
      options(now),
    );
    const ed = out.users.ed!.userId;
    const cara = out.users.cara!.userId;
    expect(out.users.ed!.token).toBe(`token-${ed}`);
    expect(await stores.users.get(ed)).toMatchObject({ role: 'editor', email: 'ed@example.com', profilePicture: null });
    expect((await stores.users.get(cara))?.role).toBe('member');

    const period = calendarMonth(now);
    expect(await stores.subscriptions.get(ed)).toMatchObject({
      tier: 'pro',
      status: 'active',
      currentPeriodStart: period.start,
      currentPeriodEnd: period.end,
    });
    expect(await stores.subscriptions.pagesUsed(ed, period.start)).toBe(7);
    expect(await stores.subscriptions.pagesUsed(cara, period.start)).toBe(0);
    expect((await stores.subscriptions.get(cara))?.status).toBe('past_due');
    expect(await stores.subscriptions.getCreatorSubscription(ed, cara)).toMatchObject({ tier: 'gold', status: 'active' });

    expect(await stores.books.get(out.books.b1!.bookId)).toMatchObject({
      ownerId: cara,
      visibility: 'private',
      accessModel: 'creator_subscription',
      requiredSubscriptionTier: 'gold',
      lineCount: 0,
    });
  });

  it('makes a user seeded with a subscription a customer of the local ledger, and no one else', async () => {
    // Without one the ledger, like Stripe, refuses their overage invoices (docs/local-runtime-and-cli.md, "The local runtime": its stand-ins).
    const out = await seed(stores, { users: [{ key: 'payer', subscription: { tier: 'basic', status: 'canceled' } }, { key: 'reader' }] }, options());
    const payer = out.users.payer!.userId;
    expect(await stores.users.get(payer)).toMatchObject({ stripeCustomerId: `cus_local_${payer}` });
    expect((await stores.users.get(out.users.reader!.userId))?.stripeCustomerId).toBeUndefined();
  });

  it('rejects a file with a bad reference or value and writes nothing', async () => {
    const bad = [
      { users: [{ key: 'a' }], notifications: [{ key: 'n', recipient: 'nobody', type: 'announcement' }] },
      { users: [{ key: 'a', subscription: { tier: 'platinum' } }] },
      { users: [{ key: 'a', role: 'owner' }] },
      { users: [{ key: 'a' }, { key: 'a' }] },
      { users: [{ key: 'a' }], books: [{ key: 'b', owner: 'a', title: 'T', accessModel: 'creator_subscription' }] },
      { users: [{ key: 'a' }], notifications: [{ key: 'n', recipient: 'a', type: 'poke' }] },
    ];
    // Stores that record every call: a rejected file must not reach any of them.
    const calls: string[] = [];
    const watch = <T extends object>(name: string, store: T): T =>
      new Proxy(store, {
        get: (target, method) => {
          const fn = Reflect.get(target, method) as (...args: unknown[]) => unknown;
          return (...args: unknown[]) => {
            calls.push(`${name}.${String(method)}`);
            return fn.apply(target, args);
          };
        },
      });
    const watched = {
      users: watch('users', stores.users),
      subscriptions: watch('subscriptions', stores.subscriptions),
      books: watch('books', stores.books),
      notifications: watch('notifications', stores.notifications),
    };
    const messages = [];
    for (const file of bad) {
      const error = await seed(watched, file, options()).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      messages.push((error as Error).message);
    }
    expect(calls).toEqual([]);
    // The same proxy does see the writes of a good file.
    await seed(watched, { users: [{ key: 'a' }] }, options());
    expect(calls).toEqual(['users.put']);
    expect(messages).toEqual([
      'seed: notifications[0].recipient: no user with key nobody',
      'seed: users[0].subscription.tier: no tier platinum in the tier catalogue',
      'seed: users[0].role: must be one of member, editor, admin',
      'seed: users[1].key: duplicate key a',
      'seed: books[0].requiredSubscriptionTier: is required for a creator_subscription book',
      'seed: notifications[0].type: must be one of comment_on_post, reply_to_comment, like_on_post, like_on_comment, new_post, admin_message, announcement, ocr_completed, ocr_failed, audio_completed, audio_failed',
    ]);
  });
});
