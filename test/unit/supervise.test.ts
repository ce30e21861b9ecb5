import { describe, expect, it } from 'vitest';
import { supervise, type StoreProcess } from '../../infra/local/embedded/supervise.ts';

/** A store process that exits when told to. */
function fakeProcess(pid: number) {
  let exit!: (reason: string) => void;
  const ended = new Promise<string>((resolve) => (exit = resolve));
  const stopped = { value: false };
  const process: StoreProcess = {
    pid,
    ended,
    stop: async () => {
      stopped.value = true;
      exit('stopped');
    },
  };
  return { process, die: (reason = 'exited (SIGKILL)') => exit(reason), stopped };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('supervise (npm start’s child stores)', () => {
  it('logs a death at once and restarts the store, then gives up, naming it, past its restarts in the window', async () => {
    const fakes = [fakeProcess(100)];
    const lines: string[] = [];
    const restarted: number[] = [];
    const givenUp: string[] = [];
    const supervised = supervise(fakes[0]!.process, {
      name: 'the embedded S3',
      relaunch: async () => {
        fakes.push(fakeProcess(100 + fakes.length));
        return fakes.at(-1)!.process;
      },
      onRestart: (next) => restarted.push(next.pid),
      onGiveUp: (reason) => givenUp.push(reason),
      log: (line) => lines.push(line),
      maxRestarts: 2,
    });
    fakes[0]!.die();
    await settle();
    expect(lines).toEqual(['the embedded S3 (pid 100) died: exited (SIGKILL); restarting it', 'the embedded S3 restarted (pid 101)']);
    expect([restarted, supervised.current().pid]).toEqual([[101], 101]);

    fakes[1]!.die();
    await settle();
    fakes[2]!.die('exited (code 1)');
    await settle();
    expect(restarted).toEqual([101, 102]);
    expect(givenUp).toEqual(['the embedded S3 (pid 102) died: exited (code 1); it died 3 times within 60 s, so it is not restarted again']);
    expect(fakes).toHaveLength(3);
  });

  it('gives up when a new one cannot start, and restarts nothing once stopped', async () => {
    const first = fakeProcess(7);
    const givenUp: string[] = [];
    supervise(first.process, {
      name: 'the embedded DynamoDB',
      relaunch: async () => Promise.reject(new Error('the DynamoDB port 8000 is already in use')),
      onGiveUp: (reason) => givenUp.push(reason),
      log: () => undefined,
    });
    first.die();
    await settle();
    expect(givenUp).toEqual(['the embedded DynamoDB (pid 7) died: exited (SIGKILL); restarting it failed: the DynamoDB port 8000 is already in use']);

    const other = fakeProcess(8);
    let relaunched = false;
    const supervised = supervise(other.process, {
      name: 'the embedded S3',
      relaunch: async () => ((relaunched = true), fakeProcess(9).process),
      log: () => undefined,
    });
    await supervised.stop();
    await settle();
    expect([other.stopped.value, relaunched]).toEqual([true, false]);
  });
});
