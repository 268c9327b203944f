// Cookies of the runtime's own: reading a `Cookie` header and writing a `Set-Cookie` line. Only the
// few attributes the inbox's sign-in needs; values are ours (base64url and dots), never quoted.

/** Attributes of a cookie the runtime sets. */
export interface CookieAttributes {
  /** Seconds it lives; 0 deletes it. */
  maxAgeSeconds: number;
  /** Where the browser sends it (default `/`). */
  path?: string;
  /** `Strict` keeps it off every request another site starts; `Lax` lets top-level GETs carry it. */
  sameSite: "Strict" | "Lax";
  /** Sent only over https. */
  secure: boolean;
}

/** What a cookie's name and value may be made of here: a token of RFC 6265's, quotes excluded. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The value of cookie `name` in a `Cookie` header, or undefined when it is absent, empty or sent
 * more than once (a second one may have been planted by a sibling domain: trust neither).
 */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  const found: string[] = [];
  for (const part of header.split(";")) {
    const at = part.indexOf("=");
    if (at < 0 || part.slice(0, at).trim() !== name) continue;
    found.push(part.slice(at + 1).trim());
  }
  const value = found.length === 1 ? found[0] : undefined;
  return value && TOKEN.test(value) ? value : undefined;
}

/**
 * A `Set-Cookie` header value: always `HttpOnly` (no page script reads it), with the given
 * lifetime, path, SameSite and Secure. Throws a `TypeError` for a name or value outside the token
 * characters (a programming error: the runtime makes them).
 */
export function setCookie(name: string, value: string, attributes: CookieAttributes): string {
  if (!TOKEN.test(name) || (value !== "" && !TOKEN.test(value))) {
    throw new TypeError(`Not a cookie name or value: ${JSON.stringify(name)}`);
  }
  return [
    `${name}=${value}`,
    `Max-Age=${Math.max(0, Math.floor(attributes.maxAgeSeconds))}`,
    `Path=${attributes.path ?? "/"}`,
    "HttpOnly",
    `SameSite=${attributes.sameSite}`,
    ...(attributes.secure ? ["Secure"] : []),
  ].join("; ");
}
