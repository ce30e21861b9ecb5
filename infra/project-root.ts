import { fileURLToPath } from 'node:url';

/** The repository's root folder, whatever the working directory. */
export const projectRoot = fileURLToPath(new URL('..', import.meta.url));
