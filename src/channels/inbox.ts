// Serves the web inbox (`/`, `/inbox.js`, `/inbox.css`): static files, no data; the page talks to
// the API with the token the person gives it (kept in the tab's sessionStorage), or with the
// sign-in cookie when the runtime has an OpenID provider.
import type { IncomingMessage, ServerResponse } from "node:http";
import { INBOX_CSS, INBOX_HTML } from "./inbox-page.js";
import { INBOX_JS } from "./inbox-script.js";

/** Static files of a page, by path. */
export type PageFiles = Readonly<Record<string, { type: string; body: string }>>;

const FILES: PageFiles = {
  "/": { type: "text/html; charset=utf-8", body: INBOX_HTML },
  "/inbox.js": { type: "text/javascript; charset=utf-8", body: INBOX_JS },
  "/inbox.css": { type: "text/css; charset=utf-8", body: INBOX_CSS },
};

/**
 * Headers of every inbox page: never cached, a strict CSP (own scripts and styles only, no
 * framing), no sniffing, no referrer.
 */
export const INBOX_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "cache-control": "no-store",
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
});

/** Answers a GET of an inbox file; false for any other path. */
export function serveInbox(request: IncomingMessage, response: ServerResponse): boolean {
  return servePageFile(FILES, request, response);
}

/** Answers a GET of one of `files` with {@link INBOX_HEADERS}; false for any other path. */
export function servePageFile(
  files: PageFiles,
  request: IncomingMessage,
  response: ServerResponse,
): boolean {
  const pathname = new URL(request.url ?? "/", "http://runtime").pathname;
  const file = files[pathname];
  if (!file) return false;
  response.writeHead(200, {
    ...INBOX_HEADERS,
    "content-type": file.type,
    "content-length": Buffer.byteLength(file.body),
  });
  response.end(file.body);
  return true;
}
