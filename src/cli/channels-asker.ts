// Asking people through a channels runtime from a command (`run --channels`, `acp --channels`):
// the runtime's token from a file or the environment.
import { readFile } from "node:fs/promises";
import { CodexHarnessError } from "../errors.js";
import type { Approvals } from "../events/approval-types.js";

/**
 * Approvals that ask through the channels runtime at `url` (token from `tokenFile`, else
 * `$CODEX_HARNESS_TOKEN`), as `source`, for the turns of `startedBy` (whom a routing rule's
 * `not_self` excludes). Throws `invalid_option` saying what is missing.
 */
export async function channelsAsker(
  url: string,
  tokenFile: string | undefined,
  source: string,
  startedBy?: string,
): Promise<Approvals> {
  let token = process.env.CODEX_HARNESS_TOKEN;
  if (tokenFile !== undefined) {
    try {
      token = (await readFile(tokenFile, "utf8")).trim();
    } catch (error) {
      throw new CodexHarnessError(
        "invalid_option",
        `cannot read --channels-token-file ${tokenFile}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  if (!token) {
    throw new CodexHarnessError(
      "invalid_option",
      "--channels needs the runtime's token: --channels-token-file <data-dir>/token, or $CODEX_HARNESS_TOKEN.",
    );
  }
  const { channelsApprovals } = await import("../channels/bridge.js");
  return channelsApprovals({ url, token, source, ...(startedBy ? { startedBy } : {}) });
}
