import type { AccessDeps } from './access.ts';
import type { GenerateDeps } from './generate.ts';

/** What the audio endpoints work with. */
export type AudioDeps = AccessDeps & GenerateDeps;
