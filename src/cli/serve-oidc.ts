// `codex-harness serve --oidc-issuer …`: the web inbox's sign-in with an OpenID Connect provider,
// from flags, and the client secret from a file or the environment (never an argument).
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import type { OidcOptions } from "../channels/oidc.js";
import { parseScopes } from "../channels/people-types.js";
import { CodexHarnessError } from "../errors.js";

/** The `serve` flags of the inbox's sign-in. */
export interface OidcServeFlags {
  oidcIssuer?: string;
  oidcClientId?: string;
  oidcClientSecretFile?: string;
  oidcRedirectUrl?: string;
  oidcGroupsClaim?: string;
  oidcIdClaim?: string;
  oidcScopes?: string;
  oidcProviderName?: string;
}

/** Where the client secret may be, besides `--oidc-client-secret-file`. */
export const OIDC_SECRET_ENV = "CODEX_HARNESS_OIDC_CLIENT_SECRET";

/** Adds the `--oidc-…` flags to `serve`. */
export function addOidcServeOptions(command: Command): Command {
  return command
    .option(
      "--oidc-issuer <url>",
      "sign in to the inbox with this OpenID Connect provider (its issuer URL; needs --oidc-client-id)",
    )
    .option("--oidc-client-id <id>", "the client id the provider issued for this runtime")
    .option(
      "--oidc-client-secret-file <file>",
      `a file holding the client's secret (or $${OIDC_SECRET_ENV}); none for a public client`,
    )
    .option(
      "--oidc-redirect-url <url>",
      "where the provider sends browsers back (default <server url>/auth/callback; behind a proxy, its public URL)",
    )
    .option("--oidc-groups-claim <claim>", "the claim holding a person's groups (default groups)")
    .option(
      "--oidc-id-claim <claim>",
      "the claim holding a person's id (default preferred_username, else email's local part, else sub)",
    )
    .option("--oidc-scopes <list>", "what a signed-in person may do (default read,answer)")
    .option(
      "--oidc-provider-name <name>",
      'the provider on the inbox\'s button, "Sign in with <name>" (default single sign-on)',
    );
}

/**
 * The sign-in the flags ask for (none without `--oidc-issuer`). Throws `invalid_option` for a
 * flag without its partner or a bad scope, `missing_secret` for a secret file it cannot read.
 */
export async function oidcServeOptions(
  flags: OidcServeFlags,
  env: NodeJS.ProcessEnv,
): Promise<OidcOptions | undefined> {
  const given = Object.entries(flags).filter(
    ([name, value]) => name.startsWith("oidc") && value !== undefined,
  );
  if (flags.oidcIssuer === undefined) {
    if (given.length === 0) return undefined;
    throw new CodexHarnessError(
      "invalid_option",
      `${given.map(([name]) => flagOf(name)).join(", ")} need${given.length === 1 ? "s" : ""} --oidc-issuer (the provider's issuer URL).`,
    );
  }
  if (!flags.oidcClientId) {
    throw new CodexHarnessError(
      "invalid_option",
      "--oidc-issuer needs --oidc-client-id: the client id the provider issued for this runtime.",
    );
  }
  let scopes: OidcOptions["scopes"];
  try {
    scopes = flags.oidcScopes === undefined ? undefined : parseScopes(flags.oidcScopes);
  } catch (error) {
    throw new CodexHarnessError("invalid_option", `--oidc-scopes: ${(error as Error).message}`);
  }
  const secret = await clientSecret(flags.oidcClientSecretFile, env);
  return {
    issuer: flags.oidcIssuer,
    clientId: flags.oidcClientId,
    ...(secret ? { clientSecret: secret } : {}),
    ...(flags.oidcRedirectUrl ? { redirectUrl: flags.oidcRedirectUrl } : {}),
    ...(flags.oidcGroupsClaim ? { groupsClaim: flags.oidcGroupsClaim } : {}),
    ...(flags.oidcIdClaim ? { idClaim: flags.oidcIdClaim } : {}),
    ...(scopes ? { scopes } : {}),
    ...(flags.oidcProviderName ? { providerName: flags.oidcProviderName } : {}),
  };
}

async function clientSecret(
  file: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  if (file === undefined) return env[OIDC_SECRET_ENV]?.trim() || undefined;
  let text: string;
  try {
    text = (await readFile(file, "utf8")).trim();
  } catch (error) {
    throw new CodexHarnessError(
      "missing_secret",
      `--oidc-client-secret-file cannot read ${file}: ${(error as Error).message}.`,
      { cause: error },
    );
  }
  if (!text) {
    throw new CodexHarnessError("missing_secret", `--oidc-client-secret-file ${file} is empty.`);
  }
  return text;
}

/** `oidcClientId` -> `--oidc-client-id`. */
function flagOf(name: string): string {
  return `--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}
