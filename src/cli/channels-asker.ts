// Asking people through a channels runtime from a command (`run --channels`, `acp --channels`):
// the runtime's token from a file or the environment.
import { readFile } from "node:fs/promises";
import type { Approvals } from "../events/approval-types.js";

/**
 * Approvals that ask through the channels runtime at `url` (token from `tokenFile`, else
 * `$CODEX_HARNESS_TOKEN`), as `source`, or why they cannot.
 */
export async function channelsAsker(
  url: string,
  tokenFile: string | undefined,
  source: string,
): Promise<Approvals | string> {
  let token = process.env.CODEX_HARNESS_TOKEN;
  if (tokenFile !== undefined) {
    try {
      token = (await readFile(tokenFile, "utf8")).trim();
    } catch (error) {
      return `cannot read --channels-token-file ${tokenFile}: ${(error as Error).message}`;
    }
  }
  if (!token) {
    return "--channels needs the runtime's token: --channels-token-file <data-dir>/token, or $CODEX_HARNESS_TOKEN.";
  }
  const { channelsApprovals } = await import("../channels/bridge.js");
  return channelsApprovals({ url, token, source });
}
