import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import { bundleOcrWorkerSync } from './ocr-worker-bundle.ts';
import { projectRoot } from './project-root.ts';

/**
 * The OCR worker's container image (issue 33; `-c ocrWorkerPackage=image`, the default): its Dockerfile
 * and the client's package files live in `ocr-worker/image/`, and the build context is a folder staged
 * at synth with those files and `bundle/`, the zip asset's files (infra/ocr-worker-bundle.ts) as they
 * are. Nothing else goes in, so the context is the size of the bundle, and the image asset's hash
 * changes only with the bundle or these files, never with tests, docs or node_modules. `cdk synth` only
 * stages the folder (cdk.out); `cdk deploy` runs `docker build` on it and pushes to the bootstrap's
 * repository. Both functions run the one image, each with its own command (its handler).
 */

/** The image's own files, copied into the context as they are. */
export const ocrWorkerImageSource = path.join(projectRoot, 'ocr-worker', 'image');
/** Lambda's Graviton: the image is built for it (and so, on an x64 machine, under emulation). */
export const ocrWorkerImagePlatform = Platform.LINUX_ARM64;
/** The bundle's folder inside the context (the Dockerfile's `COPY bundle/`). */
export const bundleFolder = 'bundle';
export const defaultOcrWorkerImageDir = path.join(projectRoot, 'dist', 'ocr-worker-image');

/** The context with the bundle copied from `bundleDir` (one built already), written to `outDir` (emptied first). */
export function stageOcrWorkerImage(bundleDir: string, outDir: string): string {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  copyImageFiles(outDir);
  cpSync(bundleDir, path.join(outDir, bundleFolder), { recursive: true });
  return outDir;
}

/** The context with a bundle built into it (synchronously: CDK's constructors are), in `dist/ocr-worker-image`. */
export function buildOcrWorkerImageContextSync(outDir = defaultOcrWorkerImageDir): string {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  copyImageFiles(outDir);
  bundleOcrWorkerSync({ outDir: path.join(outDir, bundleFolder), arch: 'arm64' });
  return outDir;
}

function copyImageFiles(outDir: string): void {
  for (const file of readdirSync(ocrWorkerImageSource)) cpSync(path.join(ocrWorkerImageSource, file), path.join(outDir, file), { recursive: true });
}

const staged = new Map<string, string>();

/**
 * The context of a bundle built already (OCR_WORKER_ASSET, the CDK tests' stub): staged once per
 * process in a folder of its own, so that test files synthesizing at once never share one.
 */
export function stagedOnce(bundleDir: string): string {
  let dir = staged.get(bundleDir);
  if (!dir) {
    dir = stageOcrWorkerImage(bundleDir, mkdtempSync(path.join(tmpdir(), 'maktaba-ocr-worker-image-')));
    staged.set(bundleDir, dir);
  }
  return dir;
}
