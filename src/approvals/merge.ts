// Lays a thread's approval handlers over the Codex's, kind by kind.
import type { Approvals } from "../events/approval-types.js";

/** `over`'s handlers replace `base`'s of the same kind; per-kind timeouts merge the same way. */
export function mergeApprovals(
  base: Approvals | undefined,
  over: Approvals | undefined,
): Approvals | undefined {
  if (!over) return base;
  if (!base) return over;
  const merged: Approvals = { ...base };
  for (const [kind, handler] of Object.entries(over)) {
    if (handler !== undefined) (merged as Record<string, unknown>)[kind] = handler;
  }
  if (typeof base.timeoutMs === "object" && typeof over.timeoutMs === "object") {
    merged.timeoutMs = { ...base.timeoutMs, ...over.timeoutMs };
  }
  return merged;
}
