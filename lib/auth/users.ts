/** The user record (docs/SPEC.md section 5: the role comes from here, never from the token). */
export type Role = 'member' | 'editor' | 'admin';
export const roles: readonly Role[] = ['member', 'editor', 'admin'];

export interface User {
  userId: string;
  username: string;
  email: string;
  role: Role;
  profilePicture: string | null;
  profilePictureKey: string | null;
  stripeCustomerId?: string;
  createdAt: string;
  updatedAt: string;
}

/** Editors and admins bypass subscription checks and charges and may manage any book or job. */
export const isStaff = (user: Pick<User, 'role'>): boolean => user.role === 'editor' || user.role === 'admin';

export interface UserStore {
  get(userId: string): Promise<User | undefined>;
  /** Users by id; missing ids are absent from the map. One round trip per 100 ids. */
  getMany(userIds: readonly string[]): Promise<Map<string, User>>;
  put(user: User): Promise<void>;
  /** Removes the profile; returns false when there was none. */
  delete(userId: string): Promise<boolean>;
}
