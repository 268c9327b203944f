// Public entry of `codex-harness/channels/slack`: the Slack backend. Its SDKs (`@slack/web-api`,
// and `@slack/socket-mode` for socket mode) are optional packages, loaded only when it starts.
export { type SlackBackend, type SlackBackendOptions, slackBackend } from "./backend.js";
export { type SlackBlock, type SlackButton, type SlackMessage, slackMessage } from "./blocks.js";
export type { ClickOutcome } from "./clicks.js";
export { SLACK_INTERACTIONS_PATH } from "./interactivity.js";
export {
  SLACK_SIGNATURE_HEADER,
  SLACK_TIMESTAMP_HEADER,
  type SlackSignatureCheck,
  signSlackRequest,
  verifySlackRequest,
} from "./signature.js";
