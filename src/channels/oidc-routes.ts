// The inbox's sign-in routes: `GET /auth/config` (what the login screen offers), `GET /auth/login`
// (to the provider), `GET /auth/callback` (back from it: a session, or a page saying why not) and
// `POST /auth/logout`. Refused sign-ins that came back from a sign-in this runtime started are
// recorded in the audit log, and count against the address as bad tokens do.
import type { IncomingMessage, ServerResponse } from "node:http";
import { CodexHarnessError } from "../errors.js";
import type { Access } from "./access.js";
import type { AuditActor, AuditLog } from "./audit-types.js";
import { cookieValue, setCookie } from "./cookies.js";
import { ChannelsError } from "./errors.js";
import { sendJson } from "./http-body.js";
import { INBOX_HEADERS } from "./inbox.js";
import { CALLBACK_PATH, type OidcSignIn, SignInRefused } from "./oidc.js";
import { type ClaimNames, signedInOf } from "./oidc-claims.js";
import { hasSessionCookie, type Sessions } from "./sessions.js";

/**
 * Where a sign-in started from another page than the inbox returns (`GET /auth/login?to=fleet`):
 * only these names (never a path the request gives), kept in a cookie of the callback's path.
 */
const RETURN_PAGES: Readonly<Record<string, string>> = Object.freeze({ fleet: "/fleet" });
const RETURN_COOKIE = "codex_harness_return";

/** What the sign-in routes need: the provider, the sessions, the throttle and the audit log. */
export interface SignInContext {
  oidc: OidcSignIn;
  sessions: Sessions;
  claims: ClaimNames;
  access: Access;
  audit: AuditLog | undefined;
  /** Whether a page at `origin` is one of the runtime's own. */
  ownsOrigin(origin: string): boolean;
}

/**
 * What `GET /auth/config` answers: whether the inbox offers sign-in, the provider's name, and
 * whether the request carries a session cookie (unchecked: `GET /v1/me` says whose it is).
 */
export interface SignInConfig {
  oidc: boolean;
  provider?: string;
  signedIn?: boolean;
}

/**
 * Answers a request under `/auth/`: `not_found` (404) for other paths, and for sign-in routes when
 * the runtime has no provider (`context` undefined).
 */
export async function handleAuth(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  context: SignInContext | undefined,
): Promise<void> {
  const route = `${request.method} ${url.pathname}`;
  if (route === "GET /auth/config") {
    const config: SignInConfig = context
      ? { oidc: true, provider: context.oidc.providerName, signedIn: hasSessionCookie(request) }
      : { oidc: false };
    return sendJson(response, 200, config);
  }
  if (context && route === "GET /auth/login") {
    const { location, cookie } = await context.oidc.login();
    const to = url.searchParams.get("to") ?? "";
    const back = Object.hasOwn(RETURN_PAGES, to) ? to : "";
    response.writeHead(302, {
      location,
      "set-cookie": [cookie, returnCookie(back)],
      "cache-control": "no-store",
    });
    response.end();
    return;
  }
  if (context && route === "GET /auth/callback") return callback(request, response, url, context);
  if (context && route === "POST /auth/logout") return logout(request, response, context);
  throw new ChannelsError(
    "not_found",
    404,
    context
      ? `No route ${route}; sign-in is GET /auth/login, POST /auth/logout.`
      : `No route ${route}: this runtime has no sign-in (start it with an OpenID provider: serve --oidc-issuer …).`,
  );
}

async function callback(
  request: IncomingMessage,
  response: ServerResponse,
  url: URL,
  context: SignInContext,
): Promise<void> {
  const { oidc, sessions } = context;
  const clear = oidc.clearLoginCookie();
  let candidate: string | undefined;
  try {
    context.access.checkAddress(request);
    const claims = await oidc.finish(url.search, request.headers.cookie);
    const signedIn = signedInOf(claims, context.claims);
    candidate = signedIn.id;
    const started = await sessions.start(signedIn);
    if (!started) {
      throw new SignInRefused(
        "program_id",
        403,
        `${JSON.stringify(signedIn.id)} (from the ${signedIn.idFrom} claim) is a program's id here, not a person's: a program cannot sign in. Remove the program, or pick another claim (--oidc-id-claim).`,
        true,
      );
    }
    const back = cookieValue(request.headers.cookie, RETURN_COOKIE) ?? "";
    response.writeHead(303, {
      location: Object.hasOwn(RETURN_PAGES, back) ? RETURN_PAGES[back] : "/",
      "set-cookie": [started.cookie, clear, returnCookie("")],
      "cache-control": "no-store",
    });
    response.end();
  } catch (error) {
    const refused = refusedFor(error);
    if (refused.status !== 429) context.access.failed(request);
    if (refused.started) await record(context, refused, candidate);
    sendPage(response, refused.status, clear, refused.message);
  }
}

async function logout(
  request: IncomingMessage,
  response: ServerResponse,
  context: SignInContext,
): Promise<void> {
  const origin = request.headers.origin;
  if (origin === undefined || !context.ownsOrigin(origin)) {
    throw new ChannelsError(
      "forbidden_origin",
      403,
      "Sign out from the runtime's own pages (this request carries no Origin of theirs).",
    );
  }
  const ended = await context.sessions.end(request);
  response.setHeader("set-cookie", context.sessions.clearCookie());
  sendJson(response, 200, { signedOut: ended });
}

/** Any error of a callback as a refusal (a store's failure is a 500 the audit log does not get). */
function refusedFor(error: unknown): SignInRefused {
  if (error instanceof SignInRefused) return error;
  if (error instanceof ChannelsError && error.status === 429) {
    return new SignInRefused(error.code, 429, error.message, false, { cause: error });
  }
  if (error instanceof CodexHarnessError && error.code === "invalid_identity") {
    return new SignInRefused(error.code, 403, error.message, true, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new SignInRefused("internal_error", 500, `The sign-in failed: ${message}`, false, {
    cause: error,
  });
}

/** Appends `sign-in.refused` (a failure to record is dropped: the refusal stands). */
async function record(
  context: SignInContext,
  refused: SignInRefused,
  candidate: string | undefined,
): Promise<void> {
  const actor: AuditActor = candidate
    ? { kind: "person", id: candidate }
    : { kind: "unknown", id: "unknown" };
  await context.audit
    ?.append({
      at: new Date().toISOString(),
      action: "sign-in.refused",
      actor,
      surface: "inbox",
      subject: candidate ?? "unknown",
      decision: "refused",
      reason: refused.code,
      message: refused.message.slice(0, 300),
      summary: { issuer: context.oidc.issuer },
    })
    .catch(() => undefined);
}

/** A small page saying why the sign-in was refused, with a way back (every value escaped). */
function sendPage(response: ServerResponse, status: number, cookie: string, message: string): void {
  const body = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in refused · codex-harness inbox</title>
<link rel="stylesheet" href="/inbox.css">
</head>
<body>
<header><h1>codex-harness inbox</h1></header>
<main class="panel" id="refused">
  <h2>Sign-in refused</h2>
  <p id="reason">${escapeHtml(message)}</p>
  <p><a href="/">Back to the inbox</a></p>
</main>
</body>
</html>
`;
  response.writeHead(status, {
    ...INBOX_HEADERS,
    "content-type": "text/html; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "set-cookie": cookie,
  });
  response.end(body);
}

/** Text as HTML: `&`, `<`, `>`, `"` and `'` escaped. */
export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (char) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char] ?? "",
  );
}

/** The cookie naming the page a sign-in returns to ("" deletes it); not a secret, so not Secure. */
function returnCookie(page: string): string {
  return setCookie(RETURN_COOKIE, page, {
    maxAgeSeconds: page ? 600 : 0,
    path: CALLBACK_PATH,
    sameSite: "Lax",
    secure: false,
  });
}
