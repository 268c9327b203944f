// The web inbox's script (`/inbox.js`): plain DOM code, no framework. It logs in with the token,
// or with the sign-in cookie when the runtime has an OpenID provider (page-sign-in.ts; it shows who
// it is), loads and follows the interactions, groups what waits by where it comes from, keeps the tab
// title's count, notifies while the tab is hidden, and takes keyboard shortcuts. Cards are built
// by `inbox-view.ts`, in the same closure. Answers and their keys go only to requests the runtime
// lets this person answer (`mayAnswer`, inbox-rights.ts); a refused answer leaves the request as
// the runtime has it.

import { WEB_INBOX } from "./check-response.js";
import { INBOX_VIEW_JS } from "./inbox-view.js";
import { PAGE_SIGN_IN_JS } from "./page-sign-in.js";

const TITLE = "codex-harness inbox";

const MAIN_JS = String.raw`
  // Stops the live stream (signing out).
  let following = null;
  const interactions = new Map();

  // Signed out: nothing of the inbox stays on the page, and its stream stops.
  function signedOut() {
    if (following) following.abort();
    interactions.clear();
    byId("inbox").hidden = true;
  }

  function remember(interaction) {
    const known = interactions.get(interaction.id);
    // The list and the live stream may overlap: keep whichever is newer.
    if (known && (known.updatedAt > interaction.updatedAt || (!open(known.status) && open(interaction.status)))) return;
    interactions.set(interaction.id, interaction);
    // Shown to someone who may answer it: then it is delivered.
    if (interaction.status === "pending" && mayAnswer(interaction)) api("POST", "/v1/interactions/" + encodeURIComponent(interaction.id) + "/delivered", {}).catch(() => {});
  }

  // Who answers is the token's. With the runtime's own token (admin), a name typed here (kept in
  // this browser) is noted with the answer as a claim (metadata.claimedBy), never as who answered.
  const nameBox = byId("name");
  nameBox.value = localStorage.getItem("codex-harness-name") || "";
  nameBox.addEventListener("change", () => localStorage.setItem("codex-harness-name", nameBox.value.trim()));

  async function respond(interaction, action, values) {
    // The gate again, on what the page knows now: nothing is sent for a request this person may not answer.
    const known = interactions.get(interaction.id) || interaction;
    if (!mayAnswer(known)) { showError(notAnswerableWords(known)); return; }
    showError("");
    const name = me && me.kind === "admin" ? nameBox.value.trim() : "";
    try {
      const updated = await api("POST", "/v1/interactions/" + encodeURIComponent(interaction.id) + "/respond", {
        action, values: values || {}, metadata: { via: ${JSON.stringify(WEB_INBOX)}, ...(name ? { answeredBy: name } : {}) },
      });
      remember(updated);
      render();
    } catch (error) {
      // Refused (not allowed, approved already, answered elsewhere): the runtime's words, and the
      // request as the runtime has it now, still waiting if it is.
      showError(error.message);
      if (error.message !== "unauthorized") refresh(interaction.id);
    }
  }

  function refresh(id) {
    api("GET", "/v1/interactions/" + encodeURIComponent(id)).then((fresh) => { remember(fresh); render(); }, () => {});
  }

  // Waiting requests in groups, one per agent: its source and thread (or project).
  function groups(waiting) {
    const found = new Map();
    for (const interaction of waiting) {
      const origin = originOf(interaction);
      const key = origin.source + "\u0000" + (origin.thread || origin.project);
      const group = found.get(key) || { origin, list: [] };
      if (!group.origin.project) group.origin.project = origin.project;
      group.list.push(interaction);
      found.set(key, group);
    }
    return [...found.values()].map(({ origin, list }) => {
      const head = originLine(origin, "group-head");
      head.append(el("span", { class: "count" }, list.length + " waiting"));
      return el("section", { class: "group" }, head, list.map(safeCard));
    });
  }

  const focusedCard = () => document.activeElement && document.activeElement.closest && document.activeElement.closest("#pending article");
  // The first waiting request takes the keyboard when it is shown, unless the person is already
  // somewhere on the page (the name field); once one had it, render keeps it on the same request.
  let focusFirst = true;

  function render() {
    const all = [...interactions.values()];
    const waiting = all.filter((i) => open(i.status)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const done = all.filter((i) => !open(i.status)).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt)).slice(0, 100);
    document.title = (waiting.length ? "(" + waiting.length + ") " : "") + ${JSON.stringify(TITLE)};
    const pending = byId("pending");
    const typing = document.activeElement && pending.contains(document.activeElement) && document.activeElement.matches("input, textarea");
    if (!typing) { // do not take away what a person is typing
      const focused = focusedCard();
      const before = focused ? [...pending.querySelectorAll("article")].indexOf(focused) : -1;
      pending.replaceChildren(...(waiting.length ? groups(waiting) : [el("p", { class: "empty" }, "Nothing is waiting.")]));
      // Keep the keyboard on the same request, or on the one that took its place.
      const cards = [...pending.querySelectorAll("article")];
      if (focused) {
        const next = cards.find((c) => c.getAttribute("data-id") === focused.getAttribute("data-id")) || cards[Math.min(before, cards.length - 1)];
        if (next) next.focus();
      } else if (focusFirst && cards.length && !byId("inbox").contains(document.activeElement)) {
        cards[0].focus();
      }
      if (cards.length) focusFirst = false;
    }
    byId("history").replaceChildren(...(done.length ? done.map(safeCard) : [el("p", { class: "empty" }, "Nothing yet.")]));
  }

  // Keys act on the focused request (the first on load; Tab, j/k or a click focus another); never
  // while typing.
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey || event.isComposing) return;
    if (event.target instanceof Element && event.target.closest("input, textarea, select, [contenteditable]")) return;
    const current = focusedCard();
    if (event.key === "j" || event.key === "k") {
      const cards = [...byId("pending").querySelectorAll("article")];
      const at = current ? cards.indexOf(current) : -1;
      const next = cards[event.key === "j" ? Math.min(at + 1, cards.length - 1) : Math.max(at - 1, 0)];
      if (next) { event.preventDefault(); next.focus(); }
      return;
    }
    if (!current || !mayAnswer(interactions.get(current.getAttribute("data-id")))) return;
    const button = current.querySelector('button[data-key="' + CSS.escape(event.key) + '"]');
    if (button) { event.preventDefault(); button.click(); }
  });
  byId("pending").addEventListener("click", (event) => {
    const target = event.target instanceof Element ? event.target : null;
    const clicked = target && !target.closest("button, input, textarea, a") && target.closest("article");
    if (clicked) clicked.focus();
  });

  // A browser notification for each request that arrives while the tab is hidden (when allowed).
  const notifyButton = byId("notify");
  const canNotify = typeof Notification === "function";
  const showNotifyButton = () => { notifyButton.hidden = !canNotify || Notification.permission !== "default"; };
  notifyButton.addEventListener("click", () => { Notification.requestPermission().then(showNotifyButton, showNotifyButton); });
  function notify(interaction) {
    if (!canNotify || Notification.permission !== "granted" || document.visibilityState === "visible") return;
    const origin = originOf(interaction);
    try {
      const note = new Notification(shortTitle(interaction), { body: [origin.source, origin.project].filter(Boolean).join(" · "), tag: interaction.id });
      note.onclick = () => { window.focus(); const node = document.querySelector('#pending article[data-id="' + CSS.escape(interaction.id) + '"]'); if (node) node.focus(); };
    } catch (_) { /* a browser that refuses page notifications */ }
  }

  function follow() {
    following = new AbortController();
    const live = (words) => () => { byId("connection").textContent = words; };
    followEvents("/v1/events", (name, interaction) => {
      const isNew = !interactions.has(interaction.id) && open(interaction.status);
      remember(interaction);
      render();
      if (isNew) notify(interaction);
    }, following.signal, live("live"), live("reconnecting…"));
  }

  async function listAll(query) {
    const all = [];
    let cursor = null;
    do {
      const page = await api("GET", "/v1/interactions?" + query + (cursor ? "&cursor=" + encodeURIComponent(cursor) : ""));
      all.push(...page.interactions);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  }

  async function start() {
    if (!(await signedIn("inbox"))) return;
    byId("signed-in").textContent = me.kind === "admin" ? "Signed in with the runtime's token (admin)." : "Signed in as " + me.name + " (" + me.id + ")" + (token ? "." : " through " + signIn.provider + ".");
    byId("claim").hidden = me.kind !== "admin";
    showNotifyButton();
    try {
      // Follow first, then list: nothing that happens in between is missed. Everything waiting
      // first (every page of it), then the latest of the history.
      follow();
      // Oldest first, so that requests made in the same millisecond keep their order.
      for (const interaction of (await listAll("status=pending,delivered&limit=200")).reverse()) remember(interaction);
      render();
      const { interactions: recent } = await api("GET", "/v1/interactions?limit=100");
      for (const interaction of recent) remember(interaction);
      render();
    } catch (error) {
      if (error.message !== "unauthorized") showError(error.message);
    }
  }

  boot();
`;

/** `/inbox.js`: the cards and the page logic in one closure. */
export const INBOX_JS = `"use strict";\n(() => {${INBOX_VIEW_JS}${PAGE_SIGN_IN_JS}${MAIN_JS}})();\n`;
