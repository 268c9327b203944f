// Who may answer, as the web inbox shows it: the one gate every answer control of a request goes
// through (buttons, options, form fields and the keys that press them), the words that stand in
// their place for someone the runtime does not let answer, and where a request that needs several
// accepts stands ("1 of 2 approvals · Alice"). Fail closed: only the runtime's own `viewer.mayAnswer
// === true` opens the gate; a request without `viewer` (an older runtime) is shown read-only. The
// functions are browser code too (`inbox-view.ts` embeds their source, so they use nothing but
// each other).
import type { Interaction } from "./interaction-types.js";

/** What these functions read of an interaction (anything may be missing: it came over the wire). */
export type Viewed = Partial<Pick<Interaction, "viewer" | "routing" | "approvals">>;

/**
 * Whether the inbox may offer `interaction`'s answers to the one looking: only when the runtime
 * said so for them (`viewer.mayAnswer === true`); a missing `viewer` or any other value is no.
 */
export function mayAnswer(interaction: Viewed | undefined): boolean {
  return interaction?.viewer?.mayAnswer === true;
}

/**
 * What the inbox shows in place of the answers of a request the one looking may not answer: the
 * runtime's reason ("Only group:release may answer this request, and bob is not among them."), or,
 * when the runtime gave none, that the request is shown read-only.
 */
export function notAnswerableWords(interaction: Viewed | undefined): string {
  const viewer = interaction?.viewer;
  const reason = viewer?.reason;
  if (typeof reason === "string" && reason.trim() !== "") return reason;
  return viewer
    ? "You may not answer this request."
    : "The runtime did not say whether you may answer this request, so it is shown read-only.";
}

/**
 * Where a request whose routing needs several accepts stands, and who gave them: "1 of 2 approvals
 * · Alice", "2 of 2 approvals · Alice, Carol", "0 of 2 approvals"; undefined for a request that
 * needs one answer.
 */
export function approvalWords(interaction: Viewed | undefined): string | undefined {
  const needed = interaction?.routing?.approvals;
  if (typeof needed !== "number" || !(needed > 1)) return undefined;
  const list = interaction?.approvals;
  const given = Array.isArray(list) ? list : [];
  const names = given.map((approval) => String(approval?.name || approval?.by || "someone"));
  return `${given.length} of ${needed} approvals${names.length ? ` · ${names.join(", ")}` : ""}`;
}

/**
 * Browser code defining {@link mayAnswer}, {@link notAnswerableWords}, {@link approvalWords} and
 * the gate `answerControls(interaction, make)` inside the script's closure (it uses `el`, defined
 * before it there). `make` builds a request's answer controls; the gate calls it only when
 * `mayAnswer`, and otherwise gives a `p.not-yours` with {@link notAnswerableWords} instead. Every
 * card builds its answers through it, and the page's `respond` and keys ask `mayAnswer` again.
 */
export const INBOX_RIGHTS_JS = `
  ${mayAnswer}
  ${notAnswerableWords}
  ${approvalWords}

  // The one gate of a request's answers: every control that answers (buttons, options, form fields,
  // the key hints) is made by make(), which runs only when the runtime says this viewer may answer.
  function answerControls(interaction, make) {
    if (!mayAnswer(interaction)) return [el("p", { class: "not-yours", role: "note" }, notAnswerableWords(interaction))];
    return make();
  }

  // "1 of 2 approvals · Alice" under the title of a request that needs several accepts; else ""
  // (cards pass it to node.append, which would write a null as the text "null").
  function approvalLine(interaction) {
    const words = approvalWords(interaction);
    return words ? el("p", { class: "approvals" }, words) : "";
  }
`;
