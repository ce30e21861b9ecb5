import { routeKey, routes } from '../routes.ts';
import type { Contract } from './contract.ts';

/** PLACEHOLDER until this function's contracts are written: every answer of these routes is undocumented. */
export const ocrCallbackContracts: Record<string, Contract> = Object.fromEntries(
  routes.filter((r) => r.function === 'ocr-callbacks').map((r) => [routeKey(r), { tag: 'OCR jobs', summary: r.path, responses: {} } satisfies Contract]),
);
