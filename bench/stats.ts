// Statistics of repeated samples (median, min) and the formatting of times, rates and ratios.

/** The median of `samples` (the mean of the middle two for an even count). */
export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The smallest sample. */
export function min(samples: number[]): number {
  return samples.length === 0 ? Number.NaN : Math.min(...samples);
}

/** Milliseconds since `start` (a `performance.now()` value). */
export function since(start: number): number {
  return performance.now() - start;
}

/** `1234.5` -> `"1235"`; small values keep a decimal. */
export function formatMs(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms.toFixed(1);
}

/**
 * How `a` compares with `b` measured side by side: the median of `a[i] / b[i]`, where `a[i]` and
 * `b[i]` ran in the same round. A ratio of the two medians would also carry how the machine's
 * speed drifted between rounds, which on a noisy machine is as large as what is measured.
 */
export function pairedRatio(a: number[], b: number[]): number {
  const count = Math.min(a.length, b.length);
  return median(Array.from({ length: count }, (_, i) => (a[i] as number) / (b[i] as number)));
}

/** `1.034` as `"1.03x"`. */
export function formatFactor(ratio: number): string {
  return `${ratio.toFixed(2)}x`;
}

/** `a / b` as `"1.03x"`. */
export function formatRatio(a: number, b: number): string {
  return formatFactor(a / b);
}

/** Bytes as MiB with one decimal. */
export function formatMiB(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** Events per second with thousands separators. */
export function formatRate(perSecond: number): string {
  return `${Math.round(perSecond).toLocaleString("en-US")}/s`;
}
