/** The AudioJob (docs/SPEC.md 2.7) and its store. */
export const audioJobStatuses = ['pending', 'in_progress', 'completed', 'failed'] as const;
export type AudioJobStatus = (typeof audioJobStatuses)[number];
/** A job not yet ended: the sweeper looks after it (lib/audio/stalled.ts). */
export const isOpen = (status: AudioJobStatus): boolean => status === 'pending' || status === 'in_progress';

export interface AudioJob {
  _id: string;
  bookId: string;
  voice: string;
  status: AudioJobStatus;
  progress: number;
  error?: string;
  createdAt: string;
  updatedAt: string;
  __v: number;
  /** Bookkeeping of the chunked run, not part of the spec's record. */
  totalLines?: number;
  totalChunks?: number;
  doneLines?: number;
  /** Who started it (POST /audio/:bookId/generate): told its outcome (lib/audio/outcome.ts). Absent on jobs started before. */
  startedBy?: string;
  /** Times the sweeper sent the job again after it stalled, and the last time (lib/audio/stalled.ts). */
  requeues?: number;
  requeuedAt?: string;
}

/** The job as the spec shows it (docs/SPEC.md 2.7): without the run's bookkeeping. */
export function jobView(job: AudioJob) {
  const { _id, bookId, voice, status, progress, error, createdAt, updatedAt, __v } = job;
  return { _id, bookId, voice, status, progress, ...(error !== undefined ? { error } : {}), createdAt, updatedAt, __v };
}

export interface AudioJobStore {
  create(job: AudioJob): Promise<void>;
  get(jobId: string): Promise<AudioJob | undefined>;
  /** Every job, newest first. */
  list(): Promise<AudioJob[]>;
  /** pending -> in_progress with the run's size; repeating it with the same size changes nothing. */
  start(jobId: string, totalLines: number, totalChunks: number, at: string): Promise<void>;
  /**
   * Counts a finished chunk once, however often its message is delivered, and returns the job as
   * counted; undefined when this chunk was already counted.
   */
  countChunk(jobId: string, chunk: number, lines: number, at: string): Promise<AudioJob | undefined>;
  /** The chunks counted so far (a plan run again sends only the others). */
  countedChunks(jobId: string): Promise<Set<number>>;
  /** Raises progress (never lowers it) while the job runs. */
  setProgress(jobId: string, progress: number, at: string): Promise<void>;
  /** in_progress -> completed (progress 100), or -> failed with the error; false when the job had already ended. Either leaves the open jobs' list. */
  finish(jobId: string, outcome: { status: 'completed' } | { status: 'failed'; error: string }, at: string): Promise<boolean>;
}
