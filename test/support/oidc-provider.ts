// A local OpenID Connect provider for the inbox's sign-in tests: panva's `oidc-provider` on
// 127.0.0.1, one confidential client that must use PKCE, a `groups` claim, its people (alice in
// `release`, bob in none, carol in groups that need normalising, one whose username cannot be an
// id), and a tiny login form of its own (no page that reaches the network): type a login, press
// Sign in; consent is given at once.
import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, createServer as createTcpServer } from "node:net";

/** Who the provider knows: the claims each signs in with. */
export const ACCOUNTS: Readonly<Record<string, Record<string, unknown>>> = {
  alice: {
    preferred_username: "alice",
    name: "Alice Liddell",
    email: "alice@example.com",
    groups: ["release"],
  },
  bob: { preferred_username: "bob", name: "Bob", email: "bob@example.com", groups: [] },
  carol: {
    preferred_username: "Carol@Example.com",
    name: "Carol",
    groups: ["Ops Team", "/platform/release", "not a group!", 42],
  },
  "not-valid": { preferred_username: "not valid!", name: "Nobody" },
};

/** The client the runtime signs in as. */
export const CLIENT_ID = "codex-harness-inbox";
export const CLIENT_SECRET = "a-test-client-secret-that-is-long-enough-for-hs256";

/** A running provider. */
export interface TestProvider {
  issuer: string;
  /** Accounts the provider may still sign in (delete one to make findAccount miss it). */
  accounts: Map<string, Record<string, unknown>>;
  close(): Promise<void>;
}

/** A loopback port free now (for a runtime whose callback URL the provider must know first). */
export async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts the provider; `redirectUris` are the runtimes' `/auth/callback` URLs it accepts. */
export async function startProvider(redirectUris: string[]): Promise<TestProvider> {
  const { default: Provider } = await import("oidc-provider");
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const accounts = new Map(Object.entries(ACCOUNTS));
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: redirectUris,
        response_types: ["code"],
        grant_types: ["authorization_code"],
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    pkce: { required: () => true },
    claims: {
      openid: ["sub"],
      profile: ["name", "preferred_username"],
      email: ["email"],
      groups: ["groups"],
    },
    findAccount: (_context: unknown, id: string) => {
      const claims = accounts.get(id);
      return claims && { accountId: id, claims: () => ({ sub: id, ...claims }) };
    },
    interactions: {
      url: (_context: unknown, interaction: { uid: string }) => `/login/${interaction.uid}`,
    },
    features: { devInteractions: { enabled: false } },
    cookies: { keys: ["a-test-cookie-key"] },
    jwks: { keys: [{ ...privateKey.export({ format: "jwk" }), alg: "RS256", use: "sig" }] },
    ttl: { Session: 600, Interaction: 600, Grant: 600, AccessToken: 600, IdToken: 600 },
  });
  const handle = provider.callback();
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const match = /^\/login\/([\w-]+)$/.exec(new URL(request.url ?? "/", issuer).pathname);
    if (!match) return handle(request, response);
    void interaction(provider, request, response).catch((error: unknown) => {
      response.writeHead(500, { "content-type": "text/plain" });
      response.end(String(error));
    });
  });
  return { issuer, accounts, close: () => close(server) };
}

type ProviderInstance = InstanceType<Awaited<typeof import("oidc-provider")>["default"]>;

/** The login form (GET), the login (POST `login=…`), and consent given at once. */
async function interaction(
  provider: ProviderInstance,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const details = await provider.interactionDetails(request, response);
  if (details.prompt.name === "login" && request.method === "GET") {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(`<!doctype html><title>Test provider</title>
<form method="post"><label for="login">Login</label> <input id="login" name="login" required>
<button type="submit">Sign in</button></form>`);
    return;
  }
  if (details.prompt.name === "login") {
    const login = new URLSearchParams(await bodyOf(request)).get("login") ?? "";
    await provider.interactionFinished(request, response, { login: { accountId: login } });
    return;
  }
  const accountId = details.session?.accountId ?? "";
  const grant = new provider.Grant({ accountId, clientId: details.params.client_id });
  const { missingOIDCScope, missingOIDCClaims } = details.prompt.details;
  if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(" "));
  if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
  const grantId = await grant.save();
  await provider.interactionFinished(
    request,
    response,
    { consent: { grantId } },
    { mergeWithLastSubmission: true },
  );
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
