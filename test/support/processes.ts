import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../infra/local/state.ts';

export { freePort } from '../../infra/local/ports.ts';

const tsx = join(projectRoot, 'node_modules', '.bin', 'tsx');

/** The environment a user's shell would give: none of the test run's own settings. */
function userEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: _, LOG_LEVEL: __, ...rest } = process.env;
  return { ...rest, ...env };
}

export interface Service {
  child: ChildProcess;
  url: string;
  /** What it wrote to stderr so far. */
  stderr(): string;
  stop(): Promise<number | null>;
}

/**
 * Starts `npm start`'s entry point and resolves with the URL it prints once it serves. `detached`: in
 * a process group of its own, as a terminal runs it, so that a test can kill the whole group.
 */
export function startService(env: Record<string, string>, options: { detached?: boolean } = {}): Promise<Service> {
  const child = spawn(tsx, ['infra/local/start.ts'], { cwd: projectRoot, env: userEnv(env), stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached ?? false });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = () =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`npm start printed no URL within 60 s\n${stderr}`));
    }, 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const url = /http:\/\/[\w.[\]:-]+:\d+/.exec(stdout)?.[0];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, stderr: () => stderr, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}\n${stderr}`));
    });
  });
}

/** Runs the CLI as `npm run --silent cli -- ...` does. */
export function cli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(tsx, ['infra/local/cli.ts', ...args], { cwd: projectRoot, env: userEnv(env) }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}
