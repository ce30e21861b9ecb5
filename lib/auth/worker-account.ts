import { newObjectId } from '../ids.ts';
import type { User, UserStore } from './users.ts';

/**
 * The OCR worker's account: its callbacks need an editor (docs/SPEC.md 4.1). An existing editor or admin is
 * used as it is; without an id a new editor is made. Any other user is refused rather than promoted.
 */
export async function workerAccount(users: UserStore, userId: string | undefined, now: Date): Promise<User> {
  if (userId) {
    const user = await users.get(userId);
    if (!user) throw new Error(`no user ${userId}`);
    if (user.role !== 'editor' && user.role !== 'admin') throw new Error(`user ${userId} is a ${user.role}, not an editor or admin`);
    return user;
  }
  const at = now.toISOString();
  const user: User = {
    userId: newObjectId(),
    username: 'ocr-worker',
    email: 'ocr-worker@maktaba.invalid',
    role: 'editor',
    profilePicture: null,
    profilePictureKey: null,
    createdAt: at,
    updatedAt: at,
  };
  await users.put(user);
  return user;
}
