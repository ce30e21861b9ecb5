import type { EngineKind } from '../../ocr-worker/engine/choose-engine.ts';
import type { AwsEstimate } from './aws-arithmetic.ts';
import type { OcrRow } from './rows.ts';

/** The OCR bench's targets (issues 13 and 33); one place for the numbers. */
export const ocrTargets = {
  /** Scans: each engine's CER at most the command line's plus this (percentage points / 100), with and without diacritics. */
  scanCerTolerance: 0.005,
  /** Born-digital PDFs: "far better" is at most this share of the command line's CER (or under 0.1%). */
  bornDigitalShare: 0.25,
  bornDigitalFloor: 0.001,
  /** tesseract.js's pages per minute per core, against the command line's, on all scans together (issue 13). */
  speedShare: 0.8,
  /** The native engine's pages per minute per core, against the command line's, on all scans together (issue 33). */
  nativeSpeedShare: 0.9,
  /** Arabic scans: the least confident tenth of the pages (by the worker's page confidence) holds at least this share of the character errors. */
  confidenceTenthShare: 1 / 3,
  /** Arabic scans: the worker's layout choice reads at most this over the better of fixed `psm 3` and fixed `psm 6`, with and without diacritics. */
  layoutCerTolerance: 0.005,
  /**
   * Without the command line, absolute CER bounds (with diacritics), a margin over what tesseract.js
   * measured with the command line beside it on 2026-11-27, on the scans with a bound book's damage
   * (show-through, a shadowed gutter, one badly damaged page in six) read with the worker's page
   * preparation (evening the light): Arabic scans 19.0%, with their two-column pages; English 0.6%;
   * born-digital 0.8%. (Without evening the light they were 23.6% and 1.8%.)
   */
  absolute: { 'ar scans': 0.22, 'en scans': 0.015, 'born-digital': 0.015 },
  /** The 300-page scan on AWS, seconds. */
  awsPages: 300,
  awsSeconds: 180,
} as const;

export interface Target {
  name: string;
  ok: boolean;
  detail: string;
}

export interface TargetInputs {
  rows: OcrRow[];
  aggregates: OcrRow[];
  aws: AwsEstimate;
  /** The engine the worker chooses on this machine (native when tesseract is installed). */
  worker: EngineKind;
}

export const pct = (x: number): string => `${(100 * x).toFixed(2)}%`;

export function targetsOf({ rows, aggregates, aws, worker }: TargetInputs): Target[] {
  const t = ocrTargets;
  const targets: Target[] = [];
  const bornDigital = rows.filter((r) => r.form === 'born-digital-pdf');
  const scans = aggregates.filter((r) => r.name !== 'all scans');
  const engines = Object.keys(scans[0]?.engines ?? {}) as EngineKind[];
  const withCli = scans.every((r) => r.cli);
  for (const engine of engines) {
    for (const r of scans) {
      const e = r.engines[engine]!;
      if (withCli) {
        const cli = r.cli!;
        targets.push({
          name: `${r.name}, ${engine}: CER no worse than the command line's (+${pct(t.scanCerTolerance)})`,
          ok: e.cer <= cli.cer + t.scanCerTolerance && e.cerNoDiacritics <= cli.cerNoDiacritics + t.scanCerTolerance,
          detail: `${engine} ${pct(e.cer)} / ${pct(e.cerNoDiacritics)}, command line ${pct(cli.cer)} / ${pct(cli.cerNoDiacritics)}`,
        });
      } else {
        const bound = t.absolute[r.name as 'ar scans' | 'en scans'];
        targets.push({ name: `${r.name}, ${engine}: CER under ${pct(bound)} (no command line)`, ok: e.cer <= bound, detail: pct(e.cer) });
      }
    }
    for (const r of bornDigital) {
      const e = r.engines[engine]!;
      if (r.cli) {
        targets.push({
          name: `${r.name}, ${engine}: CER far better (≤ ${t.bornDigitalShare} × the command line's, or under ${pct(t.bornDigitalFloor)})`,
          ok: e.cer <= Math.max(t.bornDigitalShare * r.cli.cer, t.bornDigitalFloor),
          detail: `${engine} ${pct(e.cer)}, command line ${pct(r.cli.cer)}`,
        });
      } else {
        targets.push({ name: `${r.name}, ${engine}: CER under ${pct(t.absolute['born-digital'])} (no command line)`, ok: e.cer <= t.absolute['born-digital'], detail: pct(e.cer) });
      }
    }
  }
  const all = aggregates.find((r) => r.name === 'all scans');
  if (all?.cli) {
    for (const [engine, share] of [['native', t.nativeSpeedShare], ['tesseract.js', t.speedShare]] as const) {
      const e = all.engines[engine];
      if (!e) continue;
      targets.push({
        name: `all scans, ${engine}: pages/min/core ≥ ${share} × the command line's`,
        ok: e.pagesPerMinPerCore >= share * all.cli.pagesPerMinPerCore,
        detail: `${engine} ${e.pagesPerMinPerCore.toFixed(1)}, command line ${all.cli.pagesPerMinPerCore.toFixed(1)} (${pct(e.pagesPerMinPerCore / all.cli.pagesPerMinPerCore)})`,
      });
    }
  }
  const arabic = aggregates.find((r) => r.name === 'ar scans');
  const ranking = arabic?.engines[worker]?.ranking;
  if (ranking) {
    targets.push({
      name: `ar scans, ${worker}: the least confident tenth of the pages holds ≥ ${pct(t.confidenceTenthShare)} of the character errors`,
      ok: ranking.share >= t.confidenceTenthShare,
      detail: `${ranking.tenth} of ${ranking.pages} pages hold ${ranking.tenthErrors} of ${ranking.errors} errors (${pct(ranking.share)}; at best ${pct(ranking.bestShare)})`,
    });
  }
  const chosen = arabic?.engines[worker];
  const fixed = arabic ? Object.values(arabic.layouts) : [];
  if (chosen && fixed.length === 2) {
    const best = { cer: Math.min(...fixed.map((f) => f.cer)), cerNoDiacritics: Math.min(...fixed.map((f) => f.cerNoDiacritics)) };
    targets.push({
      name: `ar scans, ${worker}: CER of the worker's layout no worse than the better of psm 3 and psm 6 (+${pct(t.layoutCerTolerance)})`,
      ok: chosen.cer <= best.cer + t.layoutCerTolerance && chosen.cerNoDiacritics <= best.cerNoDiacritics + t.layoutCerTolerance,
      detail: `worker ${pct(chosen.cer)} / ${pct(chosen.cerNoDiacritics)}, better fixed layout ${pct(best.cer)} / ${pct(best.cerNoDiacritics)}`,
    });
  }
  targets.push({ name: `${t.awsPages}-page scan on AWS under ${t.awsSeconds / 60} minutes (${worker})`, ok: aws.totalS <= t.awsSeconds, detail: `${aws.totalS.toFixed(0)} s` });
  return targets;
}
