// `--remote URL` and its credentials, for every command that talks to codex: checked before
// anything runs, errors naming the flags.
import type { Command } from "commander";
import { REMOTE_TOKEN_ENV, type RemoteOptions, resolveRemote } from "../app-server/remote.js";
import { CodexHarnessError } from "../errors.js";

/** The remote flags as commander gives them. */
export interface RemoteFlags {
  remote?: string;
  remoteTokenFile?: string;
  remoteJwtSecretFile?: string;
  remoteJwtIssuer?: string;
  remoteJwtAudience?: string;
  remoteInsecureToken?: boolean;
}

/** Adds `--remote` and its credential flags to `command`. */
export function addRemoteFlags(command: Command): Command {
  return command
    .option(
      "--remote <url>",
      "use the codex app-server at ws://HOST:PORT, wss://…, unix://PATH or unix:// instead of starting one",
    )
    .option(
      "--remote-token-file <file>",
      `with --remote: its capability token (default: $${REMOTE_TOKEN_ENV})`,
    )
    .option(
      "--remote-jwt-secret-file <file>",
      "with --remote: mint signed bearer tokens from this shared secret",
    )
    .option("--remote-jwt-issuer <issuer>", "with --remote-jwt-secret-file", "codex-harness")
    .option("--remote-jwt-audience <audience>", "with --remote-jwt-secret-file", "codex-app-server")
    .option(
      "--remote-insecure-token",
      "with --remote: send the token over plain ws:// to another machine (readable on the way)",
    );
}

/**
 * The `remote` option the flags say, or undefined without `--remote`. `conflicts` are the flags
 * that make no sense with it (they set up a local codex), as `[flag, given]`. Throws a
 * {@link CodexHarnessError} naming the flags.
 */
export function remoteOf(
  flags: RemoteFlags,
  conflicts: [string, unknown][] = [],
): RemoteOptions | undefined {
  if (flags.remote === undefined) {
    const stray = [
      flags.remoteTokenFile && "--remote-token-file",
      flags.remoteJwtSecretFile && "--remote-jwt-secret-file",
      flags.remoteInsecureToken && "--remote-insecure-token",
    ].filter(Boolean);
    if (stray.length > 0) {
      throw new CodexHarnessError(
        "invalid_option",
        `${stray.join(", ")} only go with --remote URL.`,
      );
    }
    return undefined;
  }
  const given = conflicts.filter(([, value]) => value !== undefined && value !== false);
  if (given.length > 0) {
    throw new CodexHarnessError(
      "invalid_option",
      `--remote cannot go with ${given.map(([flag]) => flag).join(", ")}: the remote codex has its own binary, home and config.`,
    );
  }
  const remote: RemoteOptions = {
    url: flags.remote,
    ...(flags.remoteTokenFile ? { tokenFile: flags.remoteTokenFile } : {}),
    ...(flags.remoteJwtSecretFile
      ? {
          jwt: {
            secretFile: flags.remoteJwtSecretFile,
            issuer: flags.remoteJwtIssuer ?? "codex-harness",
            audience: flags.remoteJwtAudience ?? "codex-app-server",
          },
        }
      : {}),
    ...(flags.remoteInsecureToken ? { allowInsecureToken: true } : {}),
  };
  try {
    resolveRemote(remote);
  } catch (error) {
    // The library's words name its options; say the flags instead.
    const message = (error as Error).message
      .replace("allowInsecureToken (--remote-insecure-token)", "--remote-insecure-token")
      .replace(/`?remote\.?\s?url`?/g, "--remote");
    throw new CodexHarnessError("invalid_remote", message, { cause: error });
  }
  return remote;
}
