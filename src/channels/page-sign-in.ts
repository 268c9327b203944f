// How the runtime's pages (the web inbox, the fleet console) sign in and talk to the API, as
// browser code shared by their scripts: the token from the address's `#token=` (then kept in the
// tab's sessionStorage, gone from the address bar), or the sign-in cookie when the runtime has an
// OpenID provider; `api()` calls with it; `followEvents()` reads a server-sent event stream with
// fetch (so the token goes in a header), resuming after the last event id; signing out.

/**
 * Browser code defining `token`, `me`, `signIn`, `byId`, `showError`, `credentials`, `refused`,
 * `api`, `askToken`, `followEvents`, `signedIn` and `boot` inside a page script's closure, and wiring the
 * `#login` form and `#signout` button. The page defines `start()` (a token or sign-in to try:
 * it calls `signedIn(mainId)`, which reads `me`) and `signedOut()` (hide what only a signed-in person sees, stop its streams), and calls
 * `boot()` last.
 */
export const PAGE_SIGN_IN_JS = String.raw`
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (fragment.get("token")) {
    sessionStorage.setItem("codex-harness-token", fragment.get("token"));
    history.replaceState(null, "", location.pathname);
  }
  let token = sessionStorage.getItem("codex-harness-token");
  // Who the token (or the sign-in) is (GET /v1/me): kind, id, name, scopes.
  let me = null;
  // What the runtime offers (GET /auth/config): { oidc, provider, signedIn }.
  let signIn = { oidc: false };
  const byId = (id) => document.getElementById(id);

  function showError(message) {
    const box = byId("error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  // With a token, it goes in the Authorization header; without, the sign-in cookie goes along
  // (HttpOnly: this script never sees it).
  const credentials = () => (token ? { authorization: "Bearer " + token } : {});
  const refused = () => (token ? "That token was refused." : "Your sign-in has ended; sign in again.");

  async function api(method, path, body) {
    const response = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: { ...credentials(), ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await response.json().catch(() => ({}));
    if (response.status === 401) { askToken(refused()); throw new Error("unauthorized"); }
    if (!response.ok) throw new Error((json.error && json.error.message) || response.status + " " + response.statusText);
    return json;
  }

  function askToken(message) {
    sessionStorage.removeItem("codex-harness-token");
    token = null;
    me = null;
    signIn.signedIn = false;
    signedOut();
    byId("sso-box").hidden = !signIn.oidc;
    byId("login").hidden = false;
    byId("connection").textContent = "";
    showError(message || "");
  }

  // Reads the event stream at path until signal aborts, reconnecting a second after it drops
  // (with Last-Event-ID: nothing is missed); onEvent(name, data, id) returning false ends it.
  // onOpen and onDrop are told when it connects and when it drops.
  async function followEvents(path, onEvent, signal, onOpen, onDrop) {
    let lastId = null;
    while (!signal.aborted) {
      try {
        const headers = { ...credentials(), ...(lastId === null ? {} : { "last-event-id": lastId }) };
        const response = await fetch(path, { credentials: "same-origin", headers, signal });
        if (response.status === 401) return askToken(refused());
        if (!response.ok) throw new Error(response.status + " " + response.statusText);
        if (onOpen) onOpen();
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end;
          while ((end = buffer.indexOf("\n\n")) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let id = null, name = "message", data = "";
            for (const line of block.split("\n")) {
              if (line.startsWith("id: ")) id = line.slice(4);
              else if (line.startsWith("event: ")) name = line.slice(7);
              else if (line.startsWith("data: ")) data += line.slice(6);
            }
            if (!data) continue;
            if (id !== null) lastId = id;
            if (onEvent(name, JSON.parse(data), id) === false) return;
          }
        }
      } catch (_) {
        // fall through: reconnect
      }
      if (signal.aborted) return;
      if (onDrop) onDrop();
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  byId("login").addEventListener("submit", (event) => {
    event.preventDefault();
    token = byId("token").value.trim();
    sessionStorage.setItem("codex-harness-token", token);
    start();
  });

  // Signing out forgets the token, or ends the sign-in's session on the runtime.
  byId("signout").addEventListener("click", async () => {
    if (!token) {
      const response = await fetch("/auth/logout", { method: "POST", credentials: "same-origin" }).catch(() => null);
      if (!response || !response.ok) return showError("Signing out failed; try again.");
    }
    askToken("Signed out.");
  });

  // Asks who the token (or the sign-in) is; when it works, shows the page's main part (mainId) in
  // place of the login. Resolves whether it did.
  async function signedIn(mainId) {
    try {
      me = await api("GET", "/v1/me");
    } catch (error) {
      if (error.message !== "unauthorized") showError(error.message);
      return false;
    }
    byId("login").hidden = true;
    byId(mainId).hidden = false;
    return true;
  }

  // Asks the runtime how one signs in, then starts with the token or sign-in the tab has, if any.
  async function boot() {
    try {
      const response = await fetch("/auth/config", { credentials: "same-origin" });
      if (response.ok) signIn = await response.json();
    } catch (_) { /* an older runtime: tokens only */ }
    if (signIn.oidc) byId("sso").textContent = "Sign in with " + signIn.provider;
    if (token || signIn.signedIn) start(); else askToken("");
  }
`;
