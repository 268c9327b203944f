// A session's folders as the editor names them (`cwd`, `additionalDirectories` of session/new, load
// and resume): ACP wants absolute paths, codex existing folders where it runs (this machine, or the
// host of --remote: codex is asked, not this machine's disk). Anything else is the editor's invalid
// params (-32602), saying which field and what to change.
import path from "node:path";
import * as acp from "@agentclientprotocol/sdk";
import type { Codex } from "../codex.js";
import { MethodNotSupportedError, RpcWireError } from "../rpc/errors.js";

/** The folders of a session request: its working directory and the editor's other roots. */
export interface SessionFolders {
  cwd: string;
  additionalDirectories?: string[] | null;
}

/**
 * Resolves when every folder of `request` is an absolute path without NUL that `codex` finds to be
 * an existing folder (a codex without `fs/getMetadata` is not asked); rejects with ACP's invalid
 * params naming the first that is not. codex failing otherwise (it stopped) rejects with that
 * failure.
 */
export async function checkSessionFolders(
  codex: Codex<"extended">,
  request: SessionFolders,
): Promise<void> {
  const named: [string, string][] = [
    ["cwd", request.cwd],
    ...(request.additionalDirectories ?? []).map((folder, index): [string, string] => [
      `additionalDirectories[${index}]`,
      folder,
    ]),
  ];
  const invalid = (name: string, why: string) =>
    acp.RequestError.invalidParams(undefined, `${name} ${why}`);
  // What the request says is checked before codex is asked anything.
  for (const [name, folder] of named) {
    if (folder.includes("\0")) {
      throw invalid(name, `must not contain a NUL character: ${JSON.stringify(folder)}`);
    }
    if (!path.isAbsolute(folder)) {
      throw invalid(
        name,
        `must be an absolute path, not ${JSON.stringify(folder)}: send the folder's full path`,
      );
    }
  }
  for (const [name, folder] of named) {
    const metadata = await codex.appServer
      .request("fs/getMetadata", { path: folder })
      .catch((error: unknown) => {
        // A codex without the method says nothing about the folder: it is left to thread/start.
        if (error instanceof MethodNotSupportedError) return undefined;
        // codex refused the path; anything else (it stopped, it is overloaded) is no answer about it.
        if (!(error instanceof RpcWireError) || error.overloaded) throw error;
        throw invalid(
          name,
          `${JSON.stringify(folder)} is not a folder codex can open (${error.message}): name an existing folder`,
        );
      });
    if (metadata && !metadata.isDirectory) {
      throw invalid(name, `${JSON.stringify(folder)} is not a folder: name a folder, not a file`);
    }
  }
}
