import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { commonJsShim, pdfReaderBundle } from '../ocr-worker/bundle-shim.ts';
import { modelData, modelScript } from '../ocr-worker/engine/models.ts';
import { formatBytes, lambdaEsm } from './bundle.ts';
import { projectRoot } from './project-root.ts';

/**
 * The OCR worker's Lambda code (both of its functions, `job.handler` and `pages.handler`): the zip asset
 * with `-c ocrWorkerPackage=zip`, and what the container image copies otherwise (infra/ocr-worker-image.ts).
 * It holds about 50 MB unzipped, far below a zip's 250 MB. What goes in, and nothing else:
 *
 * - the handlers, bundled by esbuild as the service's functions are (minified ESM, dependencies
 *   inside, the AWS SDK included);
 * - tesseract.js's worker script (`tesseract-worker.cjs`, the engine is told its path) with the ONE
 *   core the runtime loads and its `.wasm` beside it. tesseract.js picks the core by the runtime's
 *   wasm features (tesseract.js/src/worker-script/node/getCore.js): Node 22 (V8 12.4, relaxed SIMD on
 *   by default, also on Graviton) gets `tesseract-core-relaxedsimd`. Not the `-lstm` build, although
 *   the engine reads with LSTM only: tesseract.js 7 hands getCore a boolean where it compares OEM
 *   numbers, so in Node it always loads the full core (the end-to-end test runs the bundle, so a fix
 *   upstream that changes this fails there first). The other five cores (2.9–3.5 MB each) stay out:
 *   asking for one fails with a message that says so (`tesseract-core-absent.cjs`);
 * - under `node_modules/`, the files the code finds by package resolution at run time: the gzip
 *   traineddata of every model (ocr-worker/engine/models.ts), pdfjs-dist's standard fonts, CMaps,
 *   wasm decoders and colour profiles (ocr-worker/pdf/pdfjs.ts), and @napi-rs/canvas with the
 *   prebuilt Skia binary of the target (linux-arm64-gnu on Lambda), which pdfjs loads by name.
 *
 * The target's binary is copied from node_modules when this machine installed it, else fetched with
 * `npm pack` (once, into dist/cache) and checked against package-lock.json's integrity. Nothing is
 * downloaded or written at run time: tesseract.js reads its data with `cacheMethod: 'none'`.
 */

/** tesseract.js-core's builds that tesseract.js loads in Node, by the wasm features they need (see above). */
export type TesseractCore = 'tesseract-core-relaxedsimd' | 'tesseract-core-simd' | 'tesseract-core';

export interface OcrWorkerBundleOptions {
  /** Where the asset is written (emptied first); default `dist/ocr-worker`. */
  outDir?: string;
  /** The Lambda architecture (the Skia binary's); default arm64. */
  arch?: 'arm64' | 'x64';
  /** The core the runtime loads; default the one of Node 22, Lambda's runtime. */
  core?: TesseractCore;
}

export interface OcrWorkerBundle {
  /** The asset directory. */
  dir: string;
  /** Every byte of it, unzipped (the 250 MB limit counts these). */
  bytes: number;
  /** The handler files, by entry name (`job`, `pages`). */
  handlers: Record<'job' | 'pages', string>;
}

export const defaultOcrWorkerOutDir = path.join(projectRoot, 'dist', 'ocr-worker');
/** Node 22 validates relaxed SIMD (shipped in V8 11.4), so tesseract.js picks this core there. */
export const lambdaCore: TesseractCore = 'tesseract-core-relaxedsimd';
const allCores = ['relaxedsimd', 'relaxedsimd-lstm', 'simd', 'simd-lstm', '', 'lstm'].map((v) => `tesseract-core${v ? `-${v}` : ''}`);

const require = createRequire(import.meta.url);
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));
const here = path.dirname(fileURLToPath(import.meta.url));

const globalFetch = path.join(here, 'global-fetch.cjs');

function buildHandlers(outDir: string): void {
  buildSync({
    entryPoints: {
      job: path.join(projectRoot, 'ocr-worker/lambda/job.ts'),
      pages: path.join(projectRoot, 'ocr-worker/lambda/pages.ts'),
      // The process each PDF is parsed in (ocr-worker/pdf/reader-process.ts finds it beside the handler).
      [path.basename(pdfReaderBundle.file, '.mjs')]: path.join(projectRoot, pdfReaderBundle.entry),
    },
    outdir: outDir,
    ...lambdaEsm,
    // A native addon, loaded by pdfjs by name (createRequire): it ships as a package beside the code.
    external: ['@napi-rs/canvas'],
    banner: { js: commonJsShim },
    // tesseract.js's fallback for runtimes without fetch; Node 20+ has one.
    alias: { 'node-fetch': globalFetch },
  });
}

/** tesseract.js's Node worker script with only `core` inside; it finds the core's .wasm beside itself (`__dirname`). */
function buildTesseractWorker(outDir: string, core: TesseractCore): void {
  const absent = path.join(here, 'tesseract-core-absent.cjs');
  buildSync({
    entryPoints: [path.join(packageDir('tesseract.js'), 'src/worker-script/node/index.js')],
    outfile: path.join(outDir, 'tesseract-worker.cjs'),
    bundle: true,
    platform: 'node',
    target: 'node22',
    format: 'cjs',
    minify: true,
    legalComments: 'none',
    alias: {
      ...Object.fromEntries(allCores.filter((c) => c !== core).map((c) => [`tesseract.js-core/${c}`, absent])),
      'node-fetch': globalFetch,
    },
    logLevel: 'warning',
  });
  cpSync(path.join(packageDir('tesseract.js-core'), `${core}.wasm`), path.join(outDir, `${core}.wasm`));
}

/** Copies these files of an installed package into the asset's node_modules. */
function copyPackage(outDir: string, name: string, files: readonly string[]): void {
  const from = packageDir(name);
  for (const file of ['package.json', ...files]) cpSync(path.join(from, file), path.join(outDir, 'node_modules', name, file), { recursive: true });
}

function lockIntegrity(name: string): string {
  const lock = JSON.parse(readFileSync(path.join(projectRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { integrity?: string }> };
  const integrity = lock.packages[`node_modules/${name}`]?.integrity;
  if (!integrity) throw new Error(`ocr-worker bundle: package-lock.json has no integrity for ${name}`);
  return integrity;
}

/**
 * The Skia binary package of the target: from node_modules when installed for it, else the npm
 * registry's tarball of the version @napi-rs/canvas pins, verified against the lock file.
 */
function copyCanvasBinary(outDir: string, arch: 'arm64' | 'x64'): void {
  const name = `@napi-rs/canvas-linux-${arch}-gnu`;
  const target = path.join(outDir, 'node_modules', name);
  const installed = path.join(projectRoot, 'node_modules', name);
  if (existsSync(path.join(installed, 'package.json'))) {
    cpSync(installed, target, { recursive: true });
    return;
  }
  const version = (JSON.parse(readFileSync(path.join(packageDir('@napi-rs/canvas'), 'package.json'), 'utf8')) as { version: string }).version;
  const cache = path.join(projectRoot, 'dist', 'cache');
  mkdirSync(cache, { recursive: true });
  const tarball = path.join(cache, `napi-rs-canvas-linux-${arch}-gnu-${version}.tgz`);
  if (!existsSync(tarball)) {
    const packed = execFileSync('npm', ['pack', `${name}@${version}`, '--pack-destination', cache, '--silent'], { encoding: 'utf8' }).trim().split('\n').pop()!;
    if (path.join(cache, packed) !== tarball) renameSync(path.join(cache, packed), tarball);
  }
  const [algorithm, expected] = lockIntegrity(name).split(/-(.*)/s) as [string, string];
  const actual = createHash(algorithm).update(readFileSync(tarball)).digest('base64');
  if (actual !== expected) {
    rmSync(tarball);
    throw new Error(`ocr-worker bundle: ${name}@${version} from the registry does not match package-lock.json's integrity`);
  }
  const unpacked = mkdtempSync(path.join(tmpdir(), 'maktaba-canvas-'));
  try {
    execFileSync('tar', ['-xzf', tarball, '-C', unpacked]);
    cpSync(path.join(unpacked, 'package'), target, { recursive: true });
  } finally {
    rmSync(unpacked, { recursive: true, force: true });
  }
}

function copyData(outDir: string): void {
  for (const model of Object.keys(modelScript)) {
    copyPackage(outDir, `@tesseract.js-data/${model}`, [path.join(modelData, `${model}.traineddata.gz`)]);
  }
  copyPackage(outDir, 'pdfjs-dist', ['standard_fonts', 'cmaps', 'wasm', 'iccs', 'LICENSE']);
  const canvasFiles = readdirSync(packageDir('@napi-rs/canvas')).filter((f) => f.endsWith('.js') || f === 'LICENSE');
  copyPackage(outDir, '@napi-rs/canvas', canvasFiles);
}

const sizeOf = (dir: string): number =>
  readdirSync(dir, { withFileTypes: true }).reduce((n, e) => n + (e.isDirectory() ? sizeOf(path.join(dir, e.name)) : statSync(path.join(dir, e.name)).size), 0);

/** Builds the asset (synchronously: CDK's constructors are). */
export function bundleOcrWorkerSync(options: OcrWorkerBundleOptions = {}): OcrWorkerBundle {
  const outDir = path.resolve(options.outDir ?? defaultOcrWorkerOutDir);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  buildHandlers(outDir);
  buildTesseractWorker(outDir, options.core ?? lambdaCore);
  copyData(outDir);
  copyCanvasBinary(outDir, options.arch ?? 'arm64');
  return { dir: outDir, bytes: sizeOf(outDir), handlers: { job: path.join(outDir, 'job.mjs'), pages: path.join(outDir, 'pages.mjs') } };
}

/** The core this Node loads (for a bundle run on this machine, as the end-to-end test does). */
export async function coreOfThisNode(): Promise<TesseractCore> {
  const { simd, relaxedSimd } = (await import('wasm-feature-detect')) as { simd(): Promise<boolean>; relaxedSimd(): Promise<boolean> };
  if (await relaxedSimd()) return 'tesseract-core-relaxedsimd';
  return (await simd()) ? 'tesseract-core-simd' : 'tesseract-core';
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const bundle = bundleOcrWorkerSync();
  console.log(`ocr-worker ${formatBytes(bundle.bytes).padStart(14)} unzipped  ${path.relative(projectRoot, bundle.dir)}`);
}
