import type { User, UserStore } from '../../../lib/auth/users.ts';
import { copy } from './copy.ts';

/** UserStore in memory (lib/adapters/dynamo/users.ts): profiles by id. */
export class FakeUserStore implements UserStore {
  readonly users = new Map<string, User>();

  constructor(users: readonly User[] = []) {
    for (const user of users) this.users.set(user.userId, copy(user));
  }

  async get(userId: string) {
    const user = this.users.get(userId);
    return user && copy(user);
  }

  async getMany(userIds: readonly string[]) {
    const found = new Map<string, User>();
    for (const id of new Set(userIds)) {
      const user = this.users.get(id);
      if (user) found.set(id, copy(user));
    }
    return found;
  }

  async put(user: User) {
    this.users.set(user.userId, copy(user));
  }

  async delete(userId: string) {
    return this.users.delete(userId);
  }
}
