// Who an OpenID Connect sign-in is, from the provider's claims: the person's id (a configured claim,
// else the email's local part, else `sub`), the name to show, and groups (a configured claim), each
// normalised to the ids the runtime takes. Pure functions.
import { CodexHarnessError } from "../errors.js";
import { checkId, checkName } from "./people-types.js";

/** The claims of an ID token (and the userinfo response), as the provider sent them. */
export type Claims = Readonly<Record<string, unknown>>;

/** Which claims say who someone is. */
export interface ClaimNames {
  /** The person's id (default `preferred_username`). */
  idClaim?: string;
  /** The groups: an array of strings (default `groups`). */
  groupsClaim?: string;
}

/** Who signed in, as the runtime will know them. */
export interface SignedInClaims {
  id: string;
  name: string;
  /** Undefined when the provider sent no groups claim: the person's groups stay as they are. */
  groups: string[] | undefined;
  /** The claim the id came from (`preferred_username`, `email`, `sub`, …). */
  idFrom: string;
}

/** The default of {@link ClaimNames.idClaim}. */
export const DEFAULT_ID_CLAIM = "preferred_username";
/** The default of {@link ClaimNames.groupsClaim}. */
export const DEFAULT_GROUPS_CLAIM = "groups";

/**
 * A claim by name: a top-level one, or else a dotted path into nested objects
 * (`realm_access.roles`, as Keycloak puts roles).
 */
export function claimAt(claims: Claims, name: string): unknown {
  if (Object.hasOwn(claims, name)) return claims[name];
  let value: unknown = claims;
  for (const part of name.split(".")) {
    if (typeof value !== "object" || value === null || !Object.hasOwn(value, part)) {
      return undefined;
    }
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * A claim's text as an id: lower case, accents dropped, the part before an `@` (a UPN or email
 * address), white space as `-`, `/` as `.` (a group path such as Keycloak's `/team/release`, its
 * leading `/` dropped). Undefined when what is left is not a valid id (see `checkId`).
 */
export function normaliseId(text: string, what: "person" | "group"): string | undefined {
  let id = text.normalize("NFKD").replace(/\p{M}/gu, "").trim().toLowerCase();
  if (what === "person" && id.includes("@")) id = id.slice(0, id.lastIndexOf("@"));
  if (what === "group") id = id.replace(/^\/+/, "").replaceAll("/", ".");
  id = id.replace(/\s+/g, "-");
  try {
    return checkId(id, what);
  } catch {
    return undefined;
  }
}

/**
 * The groups in claim `name`: an array of strings (or one string), each normalised
 * ({@link normaliseId}); those that cannot be ids are dropped, duplicates kept once, sorted.
 * Undefined when the claim is absent.
 */
export function groupsOf(claims: Claims, name: string): string[] | undefined {
  const value = claimAt(claims, name);
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? value : [value];
  const groups = list.flatMap((group) =>
    typeof group === "string" ? [normaliseId(group, "group")] : [],
  );
  return [...new Set(groups.filter((group): group is string => group !== undefined))].sort();
}

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== "" ? value : undefined;

/**
 * Who the claims say signed in: the id from `idClaim` (default `preferred_username`), else the
 * local part of `email`, else `sub` — the first of them present, normalised; the name from `name`
 * (else the id); the groups from `groupsClaim` (default `groups`). Throws `invalid_identity`
 * saying which claim to configure when the id cannot be made valid.
 */
export function signedInOf(claims: Claims, names: ClaimNames = {}): SignedInClaims {
  const idClaim = names.idClaim ?? DEFAULT_ID_CLAIM;
  const candidates: [string, string | undefined][] = [
    [idClaim, text(claimAt(claims, idClaim))],
    ["email", text(claims.email)],
    ["sub", text(claims.sub)],
  ];
  const found = candidates.find(([, value]) => value !== undefined);
  if (!found?.[1]) {
    throw new CodexHarnessError(
      "invalid_identity",
      `The provider sent none of the claims ${idClaim}, email or sub, so the runtime cannot tell who signed in. Configure the provider to send ${idClaim}, or pick another claim (--oidc-id-claim).`,
    );
  }
  const [idFrom, value] = found;
  const id = normaliseId(value, "person");
  if (!id) {
    throw new CodexHarnessError(
      "invalid_identity",
      `The ${idFrom} claim ${JSON.stringify(value)} cannot be a person id here (1–64 lowercase letters, digits, ".", "_" or "-", not "admin"). Pick a claim whose values fit (--oidc-id-claim), or have the provider send one.`,
    );
  }
  const name = text(claims.name);
  return {
    id,
    name: name ? checkName(name.slice(0, 200)) : id,
    groups: groupsOf(claims, names.groupsClaim ?? DEFAULT_GROUPS_CLAIM),
    idFrom,
  };
}
