import type { Announcement, AnnouncementShard, AnnouncementStore, Audience } from '../../../lib/notifications/announcements.ts';
import { copy } from './copy.ts';

/** AnnouncementStore in memory (lib/adapters/dynamo/announcements.ts). */
export class FakeAnnouncements implements AnnouncementStore {
  readonly announcements = new Map<string, Announcement>();
  readonly shards = new Map<string, AnnouncementShard>();
  private key = (id: string, shard: number) => `${id}#${shard}`;

  async create(announcement: Announcement, shards: number, at: string) {
    if (this.announcements.has(announcement.announcementId)) throw new Error('announcement exists');
    this.announcements.set(announcement.announcementId, copy(announcement));
    for (let shard = 0; shard < shards; shard++) {
      this.shards.set(this.key(announcement.announcementId, shard), { announcementId: announcement.announcementId, shard, step: 0, after: null, nextSent: true, done: false, notified: 0, updatedAt: at });
    }
  }
  async get(id: string) {
    const a = this.announcements.get(id);
    return a && copy(a);
  }
  async shard(id: string, shard: number) {
    const s = this.shards.get(this.key(id, shard));
    return s && copy(s);
  }
  async advance(shard: AnnouncementShard, next: { after: string | null; done: boolean; notified: number }, at: string) {
    const s = this.shards.get(this.key(shard.announcementId, shard.shard));
    if (!s || s.step !== shard.step || s.done) return false;
    Object.assign(s, { step: s.step + 1, ...next, nextSent: false, updatedAt: at });
    return true;
  }
  async markSent(id: string, shard: number, step: number, at: string) {
    const s = this.shards.get(this.key(id, shard));
    if (s && s.step === step && !s.done) Object.assign(s, { nextSent: true, updatedAt: at });
  }
  async stalled(before: string, limit: number) {
    return [...this.shards.values()].filter((s) => !s.done && s.updatedAt < before).sort((a, b) => a.updatedAt.localeCompare(b.updatedAt)).slice(0, limit).map(copy);
  }
}

/** Every user, in `shards` partitions by a simple hash of the id, each in id order. */
export class FakeAudience implements Audience {
  readonly userIds: string[] = [];
  constructor(readonly shards = 4) {}
  private shardOf = (id: string) => [...id].reduce((n, c) => n + c.charCodeAt(0), 0) % this.shards;
  async page(shard: number, after: string | null, limit: number) {
    return this.userIds.filter((id) => this.shardOf(id) === shard && (after === null || id > after)).sort().slice(0, limit);
  }
}
