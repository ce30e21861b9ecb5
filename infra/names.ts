/** `notifications-api` -> `NotificationsApi`, for construct ids. */
export const pascal = (name: string): string => name.replace(/(^|-)(\w)/g, (_, _sep: string, c: string) => c.toUpperCase());
