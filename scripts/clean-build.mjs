// Empties build/ so that files of deleted sources (stale tests above all) never linger.
import { rmSync } from "node:fs";

rmSync("build", { recursive: true, force: true });
