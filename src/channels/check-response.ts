// The runtime's check of an answer before it stores it: an action the interaction takes, a decision
// its request takes, and nothing but a refusal from a surface that could not show it. The surfaces
// that show requests to people themselves are known by the `metadata.via` of the answers they send;
// what each cannot show is the same check the surface itself makes.
import type { ApprovalRequest } from "../events/approval-types.js";
import { chatUnshownReason } from "./chat/message.js";
import type { ChatPlatform } from "./chat/rooms.js";
import type { Interaction, InteractionResponse } from "./interaction-types.js";
import { BRIDGED_KINDS, type BridgedRequest, decisionFor, invalidResponse } from "./normalize.js";
import { unshownReason } from "./showable.js";

/** What the web inbox records as `metadata.via` on the answers it sends. */
export const WEB_INBOX = "web-inbox";

/** A surface: what it is called when an answer from it is refused, and what it cannot show. */
interface Surface {
  name: string;
  unshown(interaction: Pick<Interaction, "kind" | "payload">): string | undefined;
}

const chat = (name: string, platform: ChatPlatform): Surface => ({
  name,
  unshown: (interaction) => chatUnshownReason(interaction, platform),
});

/**
 * The surfaces by `metadata.via`: the web inbox (it shows every field at every depth, or the
 * request cannot be shown: {@link unshownReason}) and the chat backends' buttons and replies
 * (the same, and the request's lines must fit the platform's message: `chatUnshownReason`).
 * Other clients (the CLI, programs) read the payload themselves.
 */
const SURFACES: Readonly<Record<string, Surface>> = {
  [WEB_INBOX]: { name: "the web inbox", unshown: unshownReason },
  slack: chat("the Slack message", "slack"),
  telegram: chat("the Telegram message", "telegram"),
  discord: chat("the Discord message", "discord"),
};

/**
 * Why the surface an answer came from (its `metadata.via`) cannot show `interaction` in full, with
 * the surface's name ("the Slack message"), or undefined when it can, or when `via` names no surface.
 */
export function unshownOn(
  via: unknown,
  interaction: Pick<Interaction, "kind" | "payload">,
): { surface: string; reason: string } | undefined {
  if (typeof via !== "string" || !Object.hasOwn(SURFACES, via)) return undefined;
  const surface = SURFACES[via] as Surface;
  const reason = surface.unshown(interaction);
  return reason === undefined ? undefined : { surface: surface.name, reason };
}

/**
 * Checks a response against its interaction; throws `invalid_response` saying what to send
 * instead. Used by the runtime before storing, so a stored response always maps to a decision.
 * An answer from the web inbox (`metadata.via: "web-inbox"`) or a chat backend (`"slack"`,
 * `"telegram"`, `"discord"`) to a request that surface cannot show in full, at any depth
 * ({@link unshownOn}: a field of the wrong type anywhere, or lines too long for the chat message)
 * may only decline or interrupt: they offer nothing else there, and the runtime holds them to that
 * (a stale or forged button press included). Other clients read the payload themselves, and
 * answer as before.
 */
export function checkResponse(
  interaction: Pick<Interaction, "kind" | "actions" | "payload">,
  response: Pick<InteractionResponse, "action" | "values" | "metadata">,
): void {
  if (!interaction.actions.includes(response.action)) {
    throw invalidResponse(
      `this ${interaction.kind} takes ${interaction.actions.map((a) => `"${a}"`).join(", ")}, not "${response.action}"`,
    );
  }
  const refusal = response.action === "decline" || response.action === "cancel";
  const unshown = refusal ? undefined : unshownOn(response.metadata?.via, interaction);
  if (unshown) {
    throw invalidResponse(
      `${unshown.surface} cannot show this ${interaction.kind} in full (${unshown.reason}), so from there it takes only "decline" or "cancel", not "${response.action}"`,
    );
  }
  const request = interaction.payload as Partial<ApprovalRequest>;
  if (typeof request.kind === "string" && Object.hasOwn(BRIDGED_KINDS, request.kind)) {
    decisionFor(request as BridgedRequest, response);
  }
}
