// Public entry of `codex-harness/channels/discord`: the Discord backend. Its SDK (`discord.js`, for
// its REST client) is an optional package, loaded only when the backend starts.
export { type DiscordBackend, type DiscordBackendOptions, discordBackend } from "./backend.js";
export type { ClickOutcome as DiscordClickOutcome, DiscordReply } from "./clicks.js";
export { DISCORD_INTERACTIONS_PATH } from "./interactions.js";
export {
  type DiscordActionRow,
  type DiscordButton,
  type DiscordMessage,
  discordMessage,
} from "./message.js";
export {
  DISCORD_SIGNATURE_HEADER,
  DISCORD_TIMESTAMP_HEADER,
  type DiscordSignatureCheck,
  discordPublicKey,
  discordPublicKeyHex,
  signDiscordRequest,
  verifyDiscordRequest,
} from "./signature.js";
