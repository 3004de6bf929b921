/**
 * A screenshot as a check (docs/TESTS.md): the game's picture against a baseline beside the
 * test, pixel by pixel (pixelmatch over pngjs). A failure leaves the actual picture and the
 * diff beside the baseline, so a person sees what changed; --update makes the actual the
 * baseline. Every one of these files is read and written as project files are
 * (shared/project-files.ts): never through a link, only where no other user can write.
 */
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { readProjectFile, writeProjectFile } from '../../shared/project-files.js';

/** A baseline bigger than this is not a screenshot. */
export const MAX_BASELINE_BYTES = 64 << 20;

export interface ShotResult {
  ok: boolean;
  /** why it failed, in a sentence */
  detail?: string;
  ratio?: number;
  baseline: string;
  actual?: string;
  diff?: string;
  /** the baseline was written (it was missing, or --update) */
  written?: boolean;
}

const beside = (baseline: string, tag: string) => baseline.replace(/\.png$/i, `.${tag}.png`);

export function checkScreenshot(png: Buffer, baseline: string, maxDiffRatio: number, update: boolean): ShotResult {
  if (update) {
    writeProjectFile(baseline, png);
    return { ok: true, baseline, written: true };
  }
  const wanted = readProjectFile(baseline, MAX_BASELINE_BYTES);
  if (!wanted)
    return {
      ok: false,
      baseline,
      detail: `there is no baseline ${baseline}; run with --update to take it from this build`,
    };
  const want = PNG.sync.read(wanted);
  const got = PNG.sync.read(png);
  const actual = beside(baseline, 'actual');
  if (want.width !== got.width || want.height !== got.height) {
    writeProjectFile(actual, png);
    return {
      ok: false,
      baseline,
      actual,
      detail: `the screenshot is ${got.width}x${got.height}, the baseline ${want.width}x${want.height}`,
    };
  }
  const diffPng = new PNG({ width: want.width, height: want.height });
  const differing = pixelmatch(want.data, got.data, diffPng.data, want.width, want.height, { threshold: 0.1 });
  const ratio = differing / (want.width * want.height);
  if (ratio <= maxDiffRatio) return { ok: true, baseline, ratio };
  const diff = beside(baseline, 'diff');
  writeProjectFile(actual, png);
  writeProjectFile(diff, PNG.sync.write(diffPng));
  return {
    ok: false,
    baseline,
    actual,
    diff,
    ratio,
    detail: `${(ratio * 100).toFixed(2)}% of the pixels differ (allowed: ${(maxDiffRatio * 100).toFixed(2)}%)`,
  };
}
