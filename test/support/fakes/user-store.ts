import type { User, UserStore } from '../../../lib/auth/users.ts';
import { copiesOf, copy } from './copy.ts';

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
    return copiesOf(this.users, userIds);
  }

  async put(user: User) {
    this.users.set(user.userId, copy(user));
  }

  async delete(userId: string) {
    return this.users.delete(userId);
  }
}
