import { build, buildSync, type BuildOptions, type Metafile } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assetFiles, deployedFunctions, type DeployedFunction } from './functions.ts';
import { projectRoot } from './project-root.ts';

/**
 * The one bundler for Lambda code: CDK deploys its output and `bench/` measures the same files, so
 * what is measured is what ships. Each function becomes its own minified ESM bundle (`index.mjs` plus
 * the chunks it loads lazily) with every dependency inside it, the AWS SDK included (the runtime's
 * copy is a different version and would not be measured).
 */

export const defaultOutDir = path.join(projectRoot, 'dist', 'functions');

export interface BundleOptions {
  /** Where `<name>/index.mjs` is written; default `dist/functions`. */
  outDir?: string;
  /** Function names (`functions/<name>/handler.ts`); default every deployed function. */
  functions?: readonly string[];
}

export interface BundleResult {
  name: string;
  /** Absolute path of the entry `index.mjs`; its directory is the Lambda asset. */
  file: string;
  /** Every byte that ships: the entry and all of its chunks. */
  bytes: number;
  /** What a cold start parses: the entry and the chunks it imports statically (not those behind `import()`). */
  initialBytes: number;
}

// ESM output has no `require`; CommonJS dependencies inside the bundle still call it.
const requireShim =
  "import { createRequire as __bundleCreateRequire } from 'node:module';" +
  'const require = __bundleCreateRequire(import.meta.url);';

/**
 * What every Lambda bundle of the project shares (these functions' and the OCR worker's,
 * infra/ocr-worker-bundle.ts): minified ESM for Node 22 in `index.mjs`-style files with lazy chunks.
 */
export const lambdaEsm = {
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunk-[hash]',
  // Code reached only through `import()` (the SDK's SSO, ini-file and web-identity credential
  // providers, which never run on Lambda) goes to chunks a cold start does not parse. Each function
  // is built on its own, so chunks are never shared between functions.
  splitting: true,
  absWorkingDir: projectRoot,
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'esm',
  // Prefer packages' ESM builds: the AWS SDK's tree-shake far better than its CommonJS ones.
  mainFields: ['module', 'main'],
  minify: true,
  charset: 'utf8',
  // The dependencies carry no licence banners worth shipping; none means nothing extra to parse.
  legalComments: 'none',
  logLevel: 'warning',
} as const satisfies BuildOptions;

const assetDir = (outDir: string, name: string): string => path.join(outDir, name);

function buildOptions(name: string, outDir: string): BuildOptions {
  const entry = path.join(projectRoot, 'functions', name, 'handler.ts');
  if (!existsSync(entry)) throw new Error(`bundle: no source for function ${name} (expected ${entry})`);
  return {
    entryPoints: [entry],
    outdir: assetDir(outDir, name),
    entryNames: 'index',
    ...lambdaEsm,
    // The local runtime's speech stand-in (lib/adapters/speech/espeak.ts): eSpeak NG is GPL-3.0 and must
    // never ship in a Lambda bundle, and with its MP3 encoder it is 25 MB that Lambda never runs. The
    // adapter loads both with `import()` only when ADAPTERS=local, so leaving them external keeps them
    // out even if a bundle reaches that module.
    // Likewise the embedded search engine (lib/adapters/sqlite/search-engine.ts): SQLite compiled to
    // WebAssembly, loaded only when no OpenSearch domain is configured, which never happens on AWS.
    external: ['@echogarden/espeak-ng-emscripten', 'wasm-media-encoders', 'node-sqlite3-wasm'],
    // The X-Ray SDK (under Powertools' tracer) requires `semver` at load for one version check in its
    // AWS SDK v2 patcher (`captureAWS`), which never runs here: SDK v3 clients are traced with
    // `captureAWSv3Client`. That patcher is semver's only importer in any bundle (test/e2e/bundle.test.ts
    // checks); the stand-in throws if the check ever runs, and saves 29 KB per bundle. An alias, not a
    // plugin: CDK bundles with buildSync, which takes no plugins.
    alias: { semver: './infra/xray-semver.cjs' },
    treeShaking: true,
    sourcemap: false,
    banner: { js: requireShim },
    metafile: true,
  };
}

/** Clears the function's asset directory first so no stale chunk is deployed with it. */
function prepare(name: string, outDir: string): BuildOptions {
  const dir = assetDir(outDir, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return buildOptions(name, outDir);
}

/** Sizes from the metafile, which is kept beside (not inside) the asset for esbuild's analyzer. */
function finish(name: string, outDir: string, metafile: Metafile | undefined): BundleResult {
  if (!metafile) throw new Error(`bundle: esbuild returned no metafile for ${name}`);
  for (const [target, source] of Object.entries(assetFiles[name as DeployedFunction] ?? {})) {
    mkdirSync(path.dirname(path.join(assetDir(outDir, name), target)), { recursive: true });
    copyFileSync(path.join(projectRoot, source), path.join(assetDir(outDir, name), target));
  }
  writeFileSync(path.join(outDir, `${name}.meta.json`), JSON.stringify(metafile));
  const outputs = new Map(Object.entries(metafile.outputs).map(([key, out]) => [path.resolve(projectRoot, key), out]));
  const file = path.join(assetDir(outDir, name), 'index.mjs');
  if (!outputs.has(file)) throw new Error(`bundle: ${file} missing from the metafile`);
  const initial = new Set<string>();
  const visit = (output: string): void => {
    if (initial.has(output)) return;
    initial.add(output);
    for (const i of outputs.get(output)?.imports ?? []) {
      if (i.kind === 'import-statement' && !i.external) visit(path.resolve(projectRoot, i.path));
    }
  };
  visit(file);
  const sum = (files: Iterable<string>) => [...files].reduce((n, f) => n + (outputs.get(f)?.bytes ?? 0), 0);
  return { name, file, bytes: sum(outputs.keys()), initialBytes: sum(initial) };
}

const targets = (opts: BundleOptions) => ({
  outDir: path.resolve(opts.outDir ?? defaultOutDir),
  names: opts.functions ?? deployedFunctions(),
});

export async function bundleFunctions(opts: BundleOptions = {}): Promise<BundleResult[]> {
  const { outDir, names } = targets(opts);
  return Promise.all(
    names.map(async (name) => {
      const result = await build(prepare(name, outDir));
      return finish(name, outDir, result.metafile);
    }),
  );
}

/** For CDK, whose constructors are synchronous: the stack bundles while it is being built. */
export function bundleFunctionsSync(opts: BundleOptions = {}): BundleResult[] {
  const { outDir, names } = targets(opts);
  return names.map((name) => {
    return finish(name, outDir, buildSync(prepare(name, outDir)).metafile);
  });
}

export const formatBytes = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const results = await bundleFunctions();
  for (const r of results) {
    const sizes = `${formatBytes(r.bytes).padStart(12)} (${formatBytes(r.initialBytes)} at cold start)`;
    console.log(`${r.name.padEnd(24)} ${sizes}  ${path.relative(projectRoot, r.file)}`);
  }
}
