import { routeKey, routes } from '../routes.ts';
import type { Contract } from './contract.ts';

/** PLACEHOLDER until this function's contracts are written: every answer of these routes is undocumented. */
export const audioContracts: Record<string, Contract> = Object.fromEntries(
  routes.filter((r) => r.function === 'audio-api').map((r) => [routeKey(r), { tag: 'Audio', summary: r.path, responses: {} } satisfies Contract]),
);
export const audioSchemas = {};
