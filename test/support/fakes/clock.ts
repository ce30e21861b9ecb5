/** A clock that stands still until told to move: the domain's `now: () => Date`. */
export interface FixedClock {
  now: () => Date;
  /** The current time, ISO. */
  iso: () => string;
  set: (at: string | Date) => void;
  advance: (ms: number) => void;
}

export function fixedClock(at: string | Date = '2026-03-15T12:00:00.000Z'): FixedClock {
  let current = new Date(at).getTime();
  return {
    now: () => new Date(current),
    iso: () => new Date(current).toISOString(),
    set: (next) => {
      current = new Date(next).getTime();
    },
    advance: (ms) => {
      current += ms;
    },
  };
}
