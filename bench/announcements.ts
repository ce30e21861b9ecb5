import type { SQSEvent } from 'aws-lambda';
import { names } from '../infra/local/state.ts';
import type { User } from '../lib/auth/users.ts';
import type { AnnouncementDeps } from '../lib/notifications/announcements.ts';
import type { Db } from '../lib/adapters/dynamo/table.ts';
import { FakePush } from '../test/support/fakes/notifications.ts';
import { openBenchStack } from './env.ts';
import { runIfMain } from './report.ts';

/**
 * `npm run bench -- announcements` (issue 31): an announcement fanned out to `BENCH_USERS` users
 * (default 100,000) on the embedded stores, by the announcement worker's handler on the local queue
 * with the trigger's concurrency. Reports the request's time and calls (the same at any number of
 * users), the fan-out's time, the write calls per user, and a crash half way: every step in flight
 * dies between storing its page and moving its partition on, the worker is replaced, and the
 * redelivered steps run their pages again; afterwards every user has exactly one notification.
 */
export interface AnnouncementsReport {
  ok: boolean;
  users: number;
  request: { ms: number; calls: number; messages: number };
  fanOut: { ms: number; usersPerSecond: number; writeCallsPerUser: number; callsPerUser: number; byCommand: Record<string, number> };
  crash: { atNotified: number; stepsKilled: number; redelivered: number };
  /** Users with no announcement, and with more than one, after the crash and resumption. */
  missing: number;
  doubled: number;
  problems: string[];
}

const writeCommands = new Set(['TransactWriteCommand', 'BatchWriteCommand', 'PutCommand', 'UpdateCommand', 'DeleteCommand']);

/** The table's client, counting each command it sends by name. */
function counted(db: Db) {
  const byCommand: Record<string, number> = {};
  const client = new Proxy(db.client, {
    get(target, name) {
      if (name !== 'send') return Reflect.get(target, name) as unknown;
      return (command: { constructor: { name: string } }, ...rest: unknown[]) => {
        byCommand[command.constructor.name] = (byCommand[command.constructor.name] ?? 0) + 1;
        return (target.send as (...a: unknown[]) => Promise<unknown>).call(target, command, ...rest);
      };
    },
  });
  return { db: { ...db, client }, byCommand, reset: () => Object.keys(byCommand).forEach((k) => delete byCommand[k]) };
}

export async function announcementsBench(): Promise<AnnouncementsReport> {
  const userCount = Number(process.env.BENCH_USERS ?? 100_000);
  const stack = await openBenchStack('announcements');
  const problems: string[] = [];
  try {
    const [{ dynamoDocumentClient }, { dynamoNotificationStore }, { dynamoDeviceStore }, { dynamoAnnouncements, dynamoAudience }, { dynamoUserStore }, { sqsQueue }, { sqsClient }, ann, { entities }, { batchPut }, { keys }, { batchGet }, { newObjectId }, { startQueueWorker }, { announcementHandler }] =
      await Promise.all([
        import('../lib/adapters/aws/clients.ts'),
        import('../lib/adapters/dynamo/notifications.ts'),
        import('../lib/adapters/dynamo/devices.ts'),
        import('../lib/adapters/dynamo/announcements.ts'),
        import('../lib/adapters/dynamo/users.ts'),
        import('../lib/adapters/sqs/queue.ts'),
        import('../lib/adapters/aws/sqs-client.ts'),
        import('../lib/notifications/announcements.ts'),
        import('../lib/adapters/dynamo/entities.ts'),
        import('../lib/adapters/dynamo/books.ts'),
        import('../lib/adapters/dynamo/keys.ts'),
        import('../lib/adapters/dynamo/table.ts'),
        import('../lib/ids.ts'),
        import('../infra/local/queue-worker.ts'),
        import('../functions/announcement-worker/handler.ts'),
      ]);
    const plain: Db = { client: dynamoDocumentClient(), tableName: names.tableName };
    const queueUrl = stack.stores.queueUrls[names.announcementQueue]!;

    // The audience: user records as the user store writes them (each listed in its partition).
    const at = new Date().toISOString();
    const userIds = Array.from({ length: userCount }, () => newObjectId());
    const seedStart = performance.now();
    for (let i = 0; i < userIds.length; i += 2_500) {
      const users: User[] = userIds.slice(i, i + 2_500).map((userId, k) => ({ userId, username: `u${i + k}`, email: `u${i + k}@bench.test`, role: 'member', profilePicture: null, profilePictureKey: null, createdAt: at, updatedAt: at }));
      await batchPut(plain, users.map((u) => entities.user.item(u)));
    }
    const seedMs = performance.now() - seedStart;
    const admin: User = { userId: newObjectId(), username: 'admin', email: 'admin@bench.test', role: 'admin', profilePicture: null, profilePictureKey: null, createdAt: at, updatedAt: at };
    await dynamoUserStore(plain).put(admin);
    const everyone = [...userIds, admin.userId];

    const count = counted(plain);
    let crashing = false;
    let stepsKilled = 0;
    const announcements = dynamoAnnouncements(count.db);
    const deps: AnnouncementDeps = {
      notifications: dynamoNotificationStore(count.db),
      devices: dynamoDeviceStore(count.db),
      push: new FakePush(),
      now: () => new Date(),
      users: dynamoUserStore(count.db),
      audience: dynamoAudience(count.db),
      // The crash: while it lasts, a step dies after storing its page, before moving its partition on.
      announcements: {
        ...announcements,
        advance: async (...args) => {
          if (crashing) {
            stepsKilled++;
            throw new Error('worker crashed');
          }
          return announcements.advance(...args);
        },
      },
      announcementQueue: sqsQueue(sqsClient(), queueUrl),
    };

    // The request.
    const requestStart = performance.now();
    const sent = await ann.sendSystemMessage(deps, admin, { type: 'announcement', title: 'إعلان', body: 'أضفنا مئة كتاب جديد إلى المكتبة.' });
    const request = { ms: performance.now() - requestStart, calls: Object.values(count.byCommand).reduce((n, c) => n + c, 0), messages: deps.audience.shards };
    const { announcementId } = sent.body as { announcementId: string };
    count.reset();

    // The fan-out, by the worker's handler with the trigger's concurrency; a short visibility so a killed step comes back soon.
    const visibilitySeconds = 5;
    let redelivered = 0;
    const handler = announcementHandler(() => deps);
    const run = async (event: SQSEvent) => {
      redelivered += event.Records.filter((r) => Number(r.attributes.ApproximateReceiveCount) > 1).length;
      return handler(event);
    };
    const shardsNotified = async () => {
      let n = 0;
      for (let shard = 0; shard < deps.audience.shards; shard++) n += (await announcements.shard(announcementId, shard))?.notified ?? 0;
      return n;
    };
    const allDone = async () => {
      for (let shard = 0; shard < deps.audience.shards; shard++) if (!(await announcements.shard(announcementId, shard))?.done) return false;
      return true;
    };
    const trigger = { maxConcurrency: 16 };
    const fanStart = performance.now();
    let worker = startQueueWorker(queueUrl, run, 'announcement-worker', visibilitySeconds, trigger);
    let atNotified = 0;
    for (;;) {
      await new Promise((r) => setTimeout(r, 250));
      const notified = await shardsNotified();
      if (notified >= everyone.length / 2) {
        atNotified = notified;
        crashing = true;
        await new Promise((r) => setTimeout(r, 1_000));
        await worker.stop();
        crashing = false;
        worker = startQueueWorker(queueUrl, run, 'announcement-worker', visibilitySeconds, trigger);
        break;
      }
    }
    const deadline = Date.now() + 60 * 60_000;
    while (!(await allDone())) {
      if (Date.now() > deadline) {
        problems.push('the fan-out did not finish within an hour');
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    const fanMs = performance.now() - fanStart;
    await worker.stop();
    const byCommand = { ...count.byCommand };

    // Every user's inbox: exactly one notification.
    let missing = 0;
    let doubled = 0;
    for (let i = 0; i < everyone.length; i += 100) {
      const inboxes = await batchGet<{ recipientId?: string; total?: number }>(plain, everyone.slice(i, i + 100).map((id) => keys.inbox(id)));
      const totals = new Map(inboxes.map((b) => [b.recipientId, Number(b.total ?? 0)]));
      for (const id of everyone.slice(i, i + 100)) {
        const total = totals.get(id) ?? 0;
        if (total === 0) missing++;
        if (total > 1) doubled++;
      }
    }
    if (missing) problems.push(`${missing} users got no announcement`);
    if (doubled) problems.push(`${doubled} users got it more than once`);
    if (stepsKilled === 0) problems.push('the crash killed no step');

    const writes = Object.entries(byCommand).filter(([name]) => writeCommands.has(name)).reduce((n, [, c]) => n + c, 0);
    const calls = Object.values(byCommand).reduce((n, c) => n + c, 0);
    process.stderr.write(`announcements: seeded ${userCount} users in ${(seedMs / 1000).toFixed(1)} s\n`);
    return {
      ok: problems.length === 0,
      users: everyone.length,
      request,
      fanOut: { ms: fanMs, usersPerSecond: everyone.length / (fanMs / 1000), writeCallsPerUser: writes / everyone.length, callsPerUser: calls / everyone.length, byCommand },
      crash: { atNotified, stepsKilled, redelivered },
      missing,
      doubled,
      problems,
    };
  } finally {
    await stack.close();
  }
}

export function printAnnouncements(r: AnnouncementsReport): void {
  console.log(`announcement to ${r.users.toLocaleString('en-US')} users`);
  console.log(`  request: ${r.request.ms.toFixed(0)} ms, ${r.request.calls} table call(s) and ${r.request.messages} queue messages (one per user partition)`);
  console.log(
    `  fan-out: ${(r.fanOut.ms / 1000).toFixed(1)} s (${r.fanOut.usersPerSecond.toFixed(0)} users/s), ${r.fanOut.writeCallsPerUser.toFixed(3)} write calls and ${r.fanOut.callsPerUser.toFixed(3)} calls in all per user`,
  );
  console.log(`  calls: ${Object.entries(r.fanOut.byCommand).map(([name, n]) => `${name.replace(/Command$/, '')} ${n}`).join(', ')}`);
  console.log(`  crash at ${r.crash.atNotified.toLocaleString('en-US')} notified: ${r.crash.stepsKilled} steps killed, ${r.crash.redelivered} deliveries again; after it ${r.missing} missing, ${r.doubled} doubled`);
  for (const p of r.problems) console.log(`  PROBLEM: ${p}`);
}

await runIfMain(import.meta.url, announcementsBench, printAnnouncements);
