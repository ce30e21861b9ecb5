import { beforeEach, describe, expect, it } from 'vitest';
import { anonymous, type Caller } from '../../../lib/auth/caller.ts';
import type { User } from '../../../lib/auth/users.ts';
import { bookNotFound, findBook, findLine, lineNotFound, requireReadAccess, subscribersOnly } from '../../../lib/audio/access.ts';
import type { Book } from '../../../lib/books/book.ts';
import { DomainError } from '../../../lib/errors.ts';
import { newObjectId } from '../../../lib/ids.ts';
import { fakeWorld, type FakeWorld } from '../../support/fakes/index.ts';
import { aBook, storedUser } from './fixtures.ts';

/** docs/SPEC.md 4.2, "book read access": who may read a book's audio, and the 402 body of a subscriber-only book. */
let world: FakeWorld;
let owner: User;
let contributors: string[];
let people: Record<'member' | 'editor' | 'owner' | 'contributor' | 'admin' | 'goldSubscriber' | 'silverSubscriber' | 'lapsedSubscriber', Caller>;
const as = (user: User): Caller => ({ kind: 'user', user });

beforeEach(async () => {
  world = fakeWorld();
  owner = await storedUser(world, 'member', { username: 'creator', profilePicture: 'https://cdn.test/creator.png' });
  const contributor = await storedUser(world);
  const subscriber = async (tier: string, status: 'active' | 'canceled' = 'active') => {
    const user = await storedUser(world);
    await world.subscriptions.putCreatorSubscription({ userId: user.userId, creatorId: owner.userId, tier, status, updatedAt: '2026-03-01T00:00:00.000Z' });
    return as(user);
  };
  const member = await storedUser(world);
  people = {
    member: as(member),
    editor: as(await storedUser(world, 'editor')),
    owner: as(owner),
    contributor: as(contributor),
    admin: as(await storedUser(world, 'admin')),
    goldSubscriber: await subscriber('gold'),
    silverSubscriber: await subscriber('silver'),
    lapsedSubscriber: await subscriber('gold', 'canceled'),
  };
  // A subscription to another creator at the right tier opens nothing here.
  const other = await storedUser(world);
  await world.subscriptions.putCreatorSubscription({ userId: member.userId, creatorId: other.userId, tier: 'gold', status: 'active', updatedAt: '2026-03-01T00:00:00.000Z' });
  contributors = [contributor.userId];
});

const book = (fields: Partial<Book>) => aBook(owner.userId, { contributors, ...fields });

async function outcome(caller: Caller, b: Book): Promise<'read' | 'not_found' | 'payment_required'> {
  try {
    await requireReadAccess(world.accessDeps(), caller, b);
    return 'read';
  } catch (error) {
    if (error instanceof DomainError && (error.kind === 'not_found' || error.kind === 'payment_required')) return error.kind;
    throw error;
  }
}

const callers = ['anonymous', 'member', 'editor', 'owner', 'contributor', 'admin', 'goldSubscriber', 'silverSubscriber', 'lapsedSubscriber'] as const;
const callerOf = (name: (typeof callers)[number]) => (name === 'anonymous' ? anonymous : people[name]);

describe('book read access', () => {
  const table: Record<string, { fields: Partial<Book>; expected: Record<(typeof callers)[number], string> }> = {
    'public, free': {
      fields: { visibility: 'public', accessModel: 'free' },
      expected: { anonymous: 'read', member: 'read', editor: 'read', owner: 'read', contributor: 'read', admin: 'read', goldSubscriber: 'read', silverSubscriber: 'read', lapsedSubscriber: 'read' },
    },
    'private, free': {
      fields: { visibility: 'private', accessModel: 'free' },
      expected: { anonymous: 'not_found', member: 'not_found', editor: 'not_found', owner: 'read', contributor: 'read', admin: 'read', goldSubscriber: 'not_found', silverSubscriber: 'not_found', lapsedSubscriber: 'not_found' },
    },
    'public, subscribers at gold': {
      fields: { visibility: 'public', accessModel: 'creator_subscription', requiredSubscriptionTier: 'gold' },
      expected: { anonymous: 'payment_required', member: 'payment_required', editor: 'payment_required', owner: 'read', contributor: 'read', admin: 'read', goldSubscriber: 'read', silverSubscriber: 'payment_required', lapsedSubscriber: 'payment_required' },
    },
    'public, subscribers at any tier': {
      fields: { visibility: 'public', accessModel: 'creator_subscription', requiredSubscriptionTier: null },
      expected: { anonymous: 'payment_required', member: 'payment_required', editor: 'payment_required', owner: 'read', contributor: 'read', admin: 'read', goldSubscriber: 'read', silverSubscriber: 'read', lapsedSubscriber: 'payment_required' },
    },
    'private, subscribers at gold': {
      fields: { visibility: 'private', accessModel: 'creator_subscription', requiredSubscriptionTier: 'gold' },
      expected: { anonymous: 'not_found', member: 'not_found', editor: 'not_found', owner: 'read', contributor: 'read', admin: 'read', goldSubscriber: 'not_found', silverSubscriber: 'not_found', lapsedSubscriber: 'not_found' },
    },
  };

  for (const [name, { fields, expected }] of Object.entries(table)) {
    it(`${name}: ${callers.map((c) => `${c} ${expected[c]}`).join(', ')}`, async () => {
      const b = book(fields);
      const seen = Object.fromEntries(await Promise.all(callers.map(async (c) => [c, await outcome(callerOf(c), b)] as const)));
      expect(seen).toEqual(expected);
    });
  }

  it('answers 404 with the same message for a private book as for a missing one', async () => {
    const err = await requireReadAccess(world.accessDeps(), anonymous, book({ visibility: 'private' })).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'not_found', message: bookNotFound });
  });

  it('gives the 402 the spec’s fields: the book, the tier and the creator', async () => {
    const b = book({ accessModel: 'creator_subscription', requiredSubscriptionTier: 'gold' });
    const err = await requireReadAccess(world.accessDeps(), people.silverSubscriber, b).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({
      kind: 'payment_required',
      message: subscribersOnly,
      body: 'fields',
      fields: {
        requiresSubscription: true,
        contentType: 'book',
        contentId: b.bookId,
        requiredSubscriptionTier: 'gold',
        creator: { _id: owner.userId, username: 'creator', profilePicture: 'https://cdn.test/creator.png' },
      },
    });
  });

  it('names the creator by id alone when the creator’s record is gone', async () => {
    const b = aBook(newObjectId(), { accessModel: 'creator_subscription', requiredSubscriptionTier: null });
    const err = await requireReadAccess(world.accessDeps(), anonymous, b).catch((e: unknown) => e);
    expect((err as DomainError).fields.creator).toEqual({ _id: b.ownerId });
  });
});

describe('finding the book and line', () => {
  it('finds a stored book and line; a missing one or a malformed id is a 404', async () => {
    const b = book({});
    const line = { bookId: b.bookId, lineId: newObjectId(), arabic: 'بسم الله', english: 'In the name of God', commentary: '', rootwords: '' };
    await world.books.create(b, [line]);
    const found = await findBook(world.accessDeps(), b.bookId);
    expect(found).toEqual(b);
    expect(await findLine(world.accessDeps(), found, line.lineId)).toEqual(line);
    await expect(findBook(world.accessDeps(), newObjectId())).rejects.toMatchObject({ kind: 'not_found', message: bookNotFound });
    await expect(findLine(world.accessDeps(), found, newObjectId())).rejects.toMatchObject({ kind: 'not_found', message: lineNotFound });
  });
});
