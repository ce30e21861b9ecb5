import type { PageLayout } from '../../ocr-worker/contract.ts';
import type { EngineKind } from '../../ocr-worker/engine/choose-engine.ts';
import type { FixtureLanguage } from '../../ocr-worker/fixtures/pdf.ts';
import { corpusCer } from '../../ocr-worker/text/cer.ts';
import { confidenceRanking, type ConfidenceRanking } from './confidence-ranking.ts';
import type { Form } from './evaluation-set.ts';
import type { CliRead } from './tesseract-cli.ts';
import type { WorkerResult } from './worker-child.ts';

/**
 * One table row of the OCR bench: a kind (or all scans of a language) read by each engine of the
 * worker, the command line, and on Arabic scans the native engine at each fixed layout.
 */
export interface Rates {
  cer: number;
  cerNoDiacritics: number;
}

export interface Reading extends Rates {
  wallMs: number;
  cpuMs: number | undefined;
  cores: number;
  pagesPerMinPerCore: number;
  initMs: number;
}

export interface WorkerReading extends Reading {
  /** The largest resident set of the worker's process tree (the native engine's tesseract processes included when /usr/bin/time is there). */
  peakRssMb: number;
  textLayerPages: number;
  readTwice: number;
  confidence: [number, number] | undefined;
  sourceMs: number;
  readMs: number;
  ranking: ConfidenceRanking;
}

export interface OcrRow {
  name: string;
  language: FixtureLanguage;
  form: Form | 'scans';
  pages: number;
  characters: number;
  engines: Partial<Record<EngineKind, WorkerReading>>;
  cli?: Reading;
  cliSameData?: Reading;
  /** The command line with the worker's data on the images the worker's engine read: the engine alone, against the worker's whole path. */
  cliEngineImages?: Reading;
  /** The layout columns: one engine with every page at this fixed layout. */
  layouts: Partial<Record<PageLayout, Rates>>;
}

/** What one kind's measurement gave: each worker run (its peak RSS measured outside it) and the command line's. */
export interface Measured {
  references: string[];
  workers: Partial<Record<EngineKind, WorkerResult & { peakRss: number }>>;
  layouts: Partial<Record<PageLayout, WorkerResult>>;
  cli?: CliRead & { initMs: number };
  cliSameData?: CliRead & { initMs: number };
  cliEngineImages?: CliRead & { initMs: number };
}

const range = (xs: number[]): [number, number] | undefined => (xs.length ? [Math.min(...xs), Math.max(...xs)] : undefined);

/** Pages ÷ (wall minutes × cores used), cores used = CPU time ÷ wall time, at least 1. */
export const perMinPerCore = (pages: number, wallMs: number, cpuMs: number | undefined): { cores: number; pagesPerMinPerCore: number } => {
  const cores = Math.max(1, cpuMs === undefined ? 1 : cpuMs / wallMs);
  return { cores, pagesPerMinPerCore: pages / ((wallMs / 60_000) * cores) };
};

export function rowOf(name: string, language: FixtureLanguage, form: OcrRow['form'], parts: Measured[]): OcrRow {
  const references = parts.flatMap((p) => p.references);
  const pairs = (texts: string[]) => references.map((reference, i) => ({ reference, hypothesis: texts[i]! }));
  const rates = (texts: string[]): Rates => ({ cer: corpusCer(pairs(texts)), cerNoDiacritics: corpusCer(pairs(texts), { ignoreDiacritics: true }) });
  const sum = (f: (p: Measured) => number) => parts.reduce((n, p) => n + f(p), 0);
  const pages = references.length;
  const row: OcrRow = { name, language, form, pages, characters: references.reduce((n, r) => n + [...r].length, 0), engines: {}, layouts: {} };
  const kinds = Object.keys(parts[0]?.workers ?? {}) as EngineKind[];
  for (const kind of kinds) {
    const w = parts.map((p) => p.workers[kind]!);
    const wall = w.reduce((n, x) => n + x.wallMs, 0);
    const cpu = w.reduce((n, x) => n + x.cpuMs, 0);
    const workerPages = w.flatMap((x) => x.pages);
    row.engines[kind] = {
      ...rates(workerPages.map((x) => x.text)),
      wallMs: wall,
      cpuMs: cpu,
      ...perMinPerCore(pages, wall, cpu),
      initMs: Math.max(...w.map((x) => x.initMs)),
      peakRssMb: Math.max(...w.map((x) => x.peakRss)) / 1024 / 1024,
      textLayerPages: workerPages.filter((x) => x.fromTextLayer).length,
      readTwice: workerPages.filter((x) => x.readings > 1).length,
      confidence: range(workerPages.flatMap((x) => (x.confidence === undefined ? [] : [x.confidence]))),
      sourceMs: workerPages.reduce((n, x) => n + x.sourceMs, 0),
      readMs: workerPages.reduce((n, x) => n + x.readMs, 0),
      ranking: confidenceRanking(workerPages.map((x, i) => ({ confidence: x.confidence, reference: references[i]!, hypothesis: x.text }))),
    };
  }
  for (const layout of Object.keys(parts[0]?.layouts ?? {}) as PageLayout[]) {
    if (parts.every((p) => p.layouts[layout])) row.layouts[layout] = rates(parts.flatMap((p) => p.layouts[layout]!.pages.map((x) => x.text)));
  }
  for (const side of ['cli', 'cliSameData', 'cliEngineImages'] as const) {
    if (!parts.every((p) => p[side])) continue;
    const wallMs = sum((p) => p[side]!.wallMs - p[side]!.initMs);
    const cpuKnown = parts.every((p) => p[side]!.cpuMs !== undefined);
    const cpuMs = cpuKnown ? sum((p) => p[side]!.cpuMs! * ((p[side]!.wallMs - p[side]!.initMs) / p[side]!.wallMs)) : undefined;
    row[side] = { ...rates(parts.flatMap((p) => p[side]!.texts)), wallMs, cpuMs, ...perMinPerCore(pages, wallMs, cpuMs), initMs: Math.max(...parts.map((p) => p[side]!.initMs)) };
  }
  return row;
}
