// Public entry of `codex-harness/testing`: ScriptedModel, its script builders and config helpers.
export {
  type ConfigObject,
  type ConfigValue,
  mergeConfig,
  renderConfigToml,
  toConfigOverrides,
} from "../app-server/codex-config.js";
export { type ScriptedProvider, scriptedCodexConfig } from "./codex-config.js";
export {
  inputItems,
  inputTexts,
  type RecordedRequest,
  type ScriptedModelError,
  type ToolOutput,
  toolOutputs,
} from "./recorded.js";
export {
  applyPatch,
  type CallOptions,
  DEFAULT_USAGE,
  type ExecCommandOptions,
  execCommand,
  failure,
  functionCall,
  httpError,
  mcpToolCall,
  rawEvents,
  reasoning,
  reply,
  requestUserInput,
  response,
  type ScriptedFunctionCall,
  type ScriptedHttpError,
  type ScriptedMessage,
  type ScriptedOutputItem,
  type ScriptedRawEvents,
  type ScriptedReasoning,
  type ScriptedResponse,
  type ScriptedResponseFactory,
  type ScriptedStreamResponse,
  type ScriptedTiming,
  type ScriptedUsage,
  type ScriptStep,
  type UserInputQuestion,
} from "./script.js";
export {
  ScriptedModel,
  type ScriptedModelOptions,
  type WaitForRequestOptions,
} from "./scripted-model.js";
export { formatSse, renderResponseEvents, type SseEvent, splitText } from "./sse.js";
