// Public entry of `codex-harness/channels/telegram`: the Telegram backend (on the optional `grammy`
// package, loaded when a backend is made) and what it shares with the other chat backends.
export { type ChatPeople, notAllowed, parsePeople } from "../chat/people.js";
export { readSecret } from "../chat/secrets.js";
export { callFailure, redactToken } from "./api-errors.js";
export { type TelegramBackendOptions, telegramBackend } from "./backend.js";
export { keyboardOf, messageText } from "./markup.js";
