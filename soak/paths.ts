// Every stop path the campaign knows, by name: the SDK's, the ACP agent's and the fleet's.
import { postgresMissing } from "../test/support/postgres.js";
import { AcpPath } from "./acp-path.js";
import type { StopPath } from "./campaign.js";
import { FleetPath } from "./fleet-path.js";
import { sdkPaths } from "./sdk-paths.js";

export const stopPaths: Record<string, () => StopPath> = {
  ...sdkPaths,
  acp: () => new AcpPath(),
  fleet: () => new FleetPath(),
};

/** Why path `name` cannot run on this machine, if it cannot (the fleet's needs PostgreSQL). */
export function pathMissing(name: string): string | undefined {
  return name === "fleet" ? postgresMissing() : undefined;
}
