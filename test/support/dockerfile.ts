import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ocrWorkerImageSource } from '../../infra/ocr-worker-image.ts';

/** A Dockerfile read as instructions (the OCR worker's image: no Docker here to build it, so tests read it). */

export interface Instruction {
  op: string;
  args: string;
}

/** The instructions, continuation lines joined and comments dropped, by stage: before the first FROM, then one per FROM. */
export function dockerfileStages(text: string): Instruction[][] {
  const joined = text
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const stages: Instruction[][] = [[]];
  for (const line of joined.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const [, op, args] = /^(\S+)\s+(.*)$/s.exec(line)!;
    if (op!.toUpperCase() === 'FROM') stages.push([]);
    stages.at(-1)!.push({ op: op!.toUpperCase(), args: args!.replace(/\s+/g, ' ') });
  }
  return stages;
}

/** The arguments of a stage's instructions of one kind, in order. */
export const argsOf = (stage: Instruction[], op: string): string[] => stage.filter((i) => i.op === op).map((i) => i.args);

export const ocrWorkerDockerfile = (): string => readFileSync(path.join(ocrWorkerImageSource, 'Dockerfile'), 'utf8');
