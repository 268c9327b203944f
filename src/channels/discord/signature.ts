// Discord's request signing: each call to the Interactions Endpoint URL carries
// `X-Signature-Ed25519` (hex Ed25519 signature of `timestamp + body`) and `X-Signature-Timestamp`,
// checked with the application's public key (hex, from the Developer Portal).
import { createPublicKey, type KeyObject, sign, verify } from "node:crypto";
import { timestampCheck } from "../signed-requests.js";

/** Header with the hex Ed25519 signature. */
export const DISCORD_SIGNATURE_HEADER = "x-signature-ed25519";
/** Header with the time Discord signed the request (Unix seconds). */
export const DISCORD_TIMESTAMP_HEADER = "x-signature-timestamp";
/** How old (or how far ahead) a signed request may be, in seconds. */
export const DISCORD_TOLERANCE_SECONDS = 300;

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 raw key bytes follow. */
const SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

/**
 * The key object of an application's public key as the Developer Portal shows it (64 hex
 * characters), or undefined when it is not one.
 */
export function discordPublicKey(hex: string): KeyObject | undefined {
  if (typeof hex !== "string" || !/^[0-9a-fA-F]{64}$/.test(hex.trim())) return undefined;
  try {
    return createPublicKey({
      key: Buffer.concat([SPKI_PREFIX, Buffer.from(hex.trim(), "hex")]),
      format: "der",
      type: "spki",
    });
  } catch {
    return undefined;
  }
}

/** The hex public key of an Ed25519 key object, as the Developer Portal shows it (tests). */
export function discordPublicKeyHex(key: KeyObject): string {
  return key.export({ format: "der", type: "spki" }).subarray(SPKI_PREFIX.length).toString("hex");
}

/** The signature Discord sends for `body` at `timestamp`, made with an Ed25519 private key (tests, fakes). */
export function signDiscordRequest(
  privateKey: KeyObject,
  timestamp: string,
  body: string | Buffer,
): string {
  return sign(
    null,
    Buffer.concat([Buffer.from(timestamp), Buffer.from(body)]),
    privateKey,
  ).toString("hex");
}

/** Why a request's signature was refused, or `ok`. */
export type DiscordSignatureCheck = "ok" | "missing" | "stale" | "mismatch";

/**
 * Checks a request from Discord: the Ed25519 signature over `timestamp + body` with the
 * application's public key, and a timestamp within `toleranceSeconds` of `now`.
 */
export function verifyDiscordRequest(
  publicKey: KeyObject,
  headers: { signature: string | undefined; timestamp: string | undefined },
  body: string | Buffer,
  options: { toleranceSeconds?: number; now?: number } = {},
): DiscordSignatureCheck {
  const { signature, timestamp } = headers;
  if (!signature || timestamp === undefined) return "missing";
  const when = timestampCheck(timestamp, options, DISCORD_TOLERANCE_SECONDS);
  if (when === "missing") return "missing";
  if (!/^[0-9a-fA-F]{128}$/.test(signature)) return "mismatch";
  if (when === "stale") return "stale";
  const data = Buffer.concat([Buffer.from(timestamp), Buffer.from(body)]);
  return verify(null, data, publicKey, Buffer.from(signature, "hex")) ? "ok" : "mismatch";
}
