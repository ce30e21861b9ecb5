import type { Readable } from 'node:stream';

/** Keeps the last few KB written to a child's output streams, to explain a failed start. */
export function keepOutput(...streams: (Readable | null)[]): () => string {
  let tail = '';
  for (const stream of streams) {
    stream?.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString()).slice(-8192);
    });
  }
  return () => tail;
}

/** The error lines of a child's output (Java and Node stack traces reduced to their messages), else its last lines. */
export function explainOutput(output: string): string {
  const lines = output.split('\n').map((line) => line.trim()).filter(Boolean);
  const errors = lines.filter((line) => /^(Caused by: |Exception |\w*(Error|Exception)\b:?)/.test(line));
  const shown = (errors.length ? errors : lines.slice(-5)).join('\n');
  return shown ? `:\n${shown}` : '';
}
