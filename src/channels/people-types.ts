// Who the runtime knows: people and programs with groups, their tokens' scopes, and the identity a
// credential resolves to. Plain data and checks, shared by the stores, the API and the CLI.
import { CodexHarnessError } from "../errors.js";

/**
 * What a credential may do: `read` lists, shows and follows interactions (and marks one
 * delivered: shown to someone); `answer` responds to them; `create` makes them (the bridge,
 * programs); `operate` cancels them; `admin` manages people and tokens. Each is checked on its
 * own: `admin` does not imply the others.
 */
export const SCOPES = Object.freeze(["read", "answer", "create", "operate", "admin"] as const);

/** One of {@link SCOPES}. */
export type Scope = (typeof SCOPES)[number];

/**
 * What stands behind a credential: `admin` (the data directory's token), a `person`, or a
 * `program` (a service identity: the bridge of a CI job, a bot).
 */
export type IdentityKind = "admin" | "person" | "program";

/** Who a request comes from, as the runtime authenticated it. */
export interface Identity {
  kind: IdentityKind;
  /** The person's or program's id (`admin` for the data directory's token). */
  id: string;
  /** The name people are shown. */
  name: string;
  groups: readonly string[];
  /** What this credential may do. */
  scopes: readonly Scope[];
  /** The token the request carried, when it was a person's or program's. */
  tokenId?: string;
  /**
   * The chat platform's user this person answers as, when a chat backend's click or reply came
   * from a user linked to them (`slack:U024BE7LH`; `codex-harness people link`).
   */
  platformUser?: string;
}

/**
 * The data directory's token: every scope, id `admin`. Also who an in-process caller of the
 * runtime answers as when it names nobody.
 */
export const ADMIN: Readonly<Identity> = Object.freeze({
  kind: "admin",
  id: "admin",
  name: "admin",
  groups: Object.freeze([]),
  scopes: SCOPES,
});

/** A person or a program the runtime knows. */
export interface Person {
  id: string;
  kind: "person" | "program";
  name: string;
  groups: string[];
  /** ISO 8601. */
  createdAt: string;
}

/** A token of a person or program: never the secret, only what it may do and whether it still may. */
export interface TokenRecord {
  id: string;
  /** Whose it is. */
  personId: string;
  scopes: Scope[];
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601; absent while the token works. */
  revokedAt?: string;
}

/** Ids of people, programs and groups: lowercase letters, digits, `.`, `_`, `-`; 1–64 characters. */
const ID = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/**
 * Checks the id of a person, program or group; throws `invalid_input` saying what to give. `admin`
 * is the data directory's token, and ids with a `:` are a chat platform's users (`slack:U123`), so
 * neither can be taken.
 */
export function checkId(id: string, what: "person" | "group"): string {
  if (!ID.test(id)) {
    throw new CodexHarnessError(
      "invalid_input",
      `${JSON.stringify(id)} is not a ${what} id: use 1–64 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit (e.g. alice, release-bot).`,
    );
  }
  if (what === "person" && id === ADMIN.id) {
    throw new CodexHarnessError(
      "invalid_input",
      `"admin" is the data directory's token; give the person or program another id.`,
    );
  }
  return id;
}

/** Checks a display name (1–200 characters, not blank); throws `invalid_input`. */
export function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === "" || trimmed.length > 200) {
    throw new CodexHarnessError(
      "invalid_input",
      `The name must have 1–200 characters, got ${JSON.stringify(name)}.`,
    );
  }
  return trimmed;
}

/**
 * Reads scopes from `read,answer` (or a list of such): known ones only, each once, in the order of
 * {@link SCOPES}. Throws `invalid_input` naming an unknown one, or when none is given.
 */
export function parseScopes(given: string | readonly string[]): Scope[] {
  const words = (typeof given === "string" ? [given] : given)
    .flatMap((part) => part.split(","))
    .map((word) => word.trim())
    .filter(Boolean);
  const unknown = words.filter((word) => !SCOPES.includes(word as Scope));
  if (unknown.length > 0) {
    throw new CodexHarnessError(
      "invalid_input",
      `Unknown scope ${unknown.map((word) => JSON.stringify(word)).join(", ")}; use ${SCOPES.join(", ")}.`,
    );
  }
  if (words.length === 0) {
    throw new CodexHarnessError(
      "invalid_input",
      `Give at least one scope: ${SCOPES.join(", ")} (e.g. read,answer).`,
    );
  }
  return SCOPES.filter((scope) => words.includes(scope));
}
