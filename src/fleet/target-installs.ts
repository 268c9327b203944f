// Which install of a target is newer, by the database's clock: each install (its manifest hash) is
// recorded when a worker first runs a turn with it. A session moves only forward, to an install
// first seen after the one its last turn used; a worker with an older copy of the project refuses.
import { CodexHarnessError } from "../errors.js";
import type { FleetStore } from "./store.js";

/**
 * Records that `hash` is an install of `target` (when first seen), and checks it against the
 * install the session's last turn used (`sessionHash`, null for a new session). Resolves whether
 * the session moves to a newer install; throws `target_mismatch` when this install is older.
 */
export async function checkTargetInstall(
  store: FleetStore,
  target: string,
  hash: string,
  session: { id: string; hash: string | null; worker: string },
): Promise<{ updated: boolean }> {
  await store.pool.query(
    `INSERT INTO codex_harness_fleet_installs (target, manifest_hash) VALUES ($1, $2)
     ON CONFLICT DO NOTHING`,
    [target, hash],
  );
  if (session.hash === null || session.hash === hash) return { updated: false };
  const { rows } = await store.pool.query(
    `SELECT manifest_hash FROM codex_harness_fleet_installs
     WHERE target = $1 AND manifest_hash = ANY($2) ORDER BY first_seen_at DESC, manifest_hash LIMIT 1`,
    [target, [hash, session.hash]],
  );
  if (rows[0]?.manifest_hash === hash) return { updated: true };
  throw new CodexHarnessError(
    "target_mismatch",
    `Target "${target}" is installed on worker ${session.worker} as an older version than session ${session.id} already ran with (manifest ${hash.slice(0, 12)} vs ${session.hash.slice(0, 12)}): update this worker's copy of the project.`,
  );
}
