// The tokens of people and programs: `chp_<id>_<secret>`, a 256-bit random secret of which only the
// SHA-256 is stored, looked up by the id it carries and compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** What every person's or program's token starts with (the data directory's token never does). */
export const TOKEN_PREFIX = "chp_";

/** `chp_` + 16 hex digits (the token's id) + `_` + 43 base64url characters (32 random bytes). */
const FORMAT = /^chp_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** A token as made: the string to hand over once, its id, and the hash to store. */
export interface MintedToken {
  token: string;
  id: string;
  hash: string;
}

/** Makes a new token: a random id (64 bits) and secret (256 bits), and the secret's hash. */
export function mintToken(): MintedToken {
  const id = randomBytes(8).toString("hex");
  const secret = randomBytes(32).toString("base64url");
  return { token: `${TOKEN_PREFIX}${id}_${secret}`, id, hash: hashSecret(secret) };
}

/** The id and secret of a token string, or undefined when it is not one of ours in form. */
export function parseToken(token: string): { id: string; secret: string } | undefined {
  const match = FORMAT.exec(token);
  return match?.[1] && match[2] ? { id: match[1], secret: match[2] } : undefined;
}

/** The stored form of a secret: its SHA-256, in hex. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/** A hash no secret has, compared against when a token's id is unknown (the same work either way). */
const NO_HASH = "0".repeat(64);

/**
 * Whether `secret` hashes to `stored` (hex SHA-256), compared in constant time. With `stored`
 * undefined (no such token) it does the same work and answers false.
 */
export function secretMatches(secret: string, stored: string | undefined): boolean {
  const given = Buffer.from(hashSecret(secret), "hex");
  const expected = Buffer.from(stored ?? NO_HASH, "hex");
  return expected.length === given.length && timingSafeEqual(given, expected) && !!stored;
}
