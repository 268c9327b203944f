// Signed callbacks (to our webhook's receivers, from Slack, from Discord) carry a timestamp in
// Unix seconds that must be recent, so a captured request cannot be replayed later: one check.

/** Whether `timestamp` is Unix seconds within `toleranceSeconds` of `now` (ms). */
export function timestampCheck(
  timestamp: string,
  options: { toleranceSeconds?: number; now?: number },
  defaultToleranceSeconds: number,
): "missing" | "stale" | "ok" {
  if (!/^\d{1,12}$/.test(timestamp)) return "missing";
  const age = Math.abs((options.now ?? Date.now()) / 1000 - Number(timestamp));
  return age > (options.toleranceSeconds ?? defaultToleranceSeconds) ? "stale" : "ok";
}
