import { httpFunctions, type FunctionName } from '../functions/routes.ts';

/**
 * What gets deployed, as data: which functions exist, how big each one is and what it may touch.
 * A new function is a route-table entry (or a background entry below) plus one line in `access`;
 * the bundler, the stack and the benchmark all read this module, so none of them lists functions.
 */

/** Functions with a non-HTTP trigger (e.g. `audio-worker` on SQS); each also needs its trigger in the stack. */
export const backgroundFunctions = [] as const satisfies readonly string[];

export type DeployedFunction = FunctionName | (typeof backgroundFunctions)[number];

/** Every function that ships, each bundled from `functions/<name>.ts`. */
export const deployedFunctions = (): DeployedFunction[] => [...httpFunctions(), ...backgroundFunctions];

export interface Sizing {
  memoryMb: number;
  timeoutSeconds: number;
}

export const defaultSizing: Sizing = { memoryMb: 512, timeoutSeconds: 10 };

/** Per-function departures from the default (e.g. `ocr-export` builds documents in memory). */
export const sizing: Partial<Record<DeployedFunction, Partial<Sizing>>> = {};

export const sizingOf = (name: DeployedFunction): Sizing => ({ ...defaultSizing, ...sizing[name] });

/**
 * Resource access beyond the defaults (logs; the JWT secret for HTTP functions), by function.
 * A `Record` over every function so that adding a function without deciding its access fails to compile.
 * - `table`: read/write items of the table and its indexes.
 * - `push`: SNS mobile push on the configured platform applications and their endpoints.
 * - `uploads`: objects of the uploads bucket under `ocr/` (the files) and `ocr-results/` (long texts).
 * - `ocr-queue`: send to the OCR job queue.
 * - `stripe`: read the Stripe keys secret.
 */
export type Access = 'table' | 'push' | 'uploads' | 'ocr-queue' | 'stripe';

export const access: Record<DeployedFunction, readonly Access[]> = {
  'notifications-api': ['table', 'push'],
  'ocr-api': ['table', 'uploads', 'ocr-queue'],
  'ocr-callbacks': ['table', 'uploads', 'stripe'],
  'billing-webhook': ['table', 'stripe'],
};
