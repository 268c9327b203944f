// Public entry of `codex-harness/spaces`: agent-spaces projects -> Codex homes (install, resolve,
// targets, spaces) and per-session homes.
export {
  codexHomeDir,
  type InstallOptions,
  type InstallResult,
  installSpaces,
  installTarget,
  installTargets,
  spacesTargetName,
} from "./install.js";
export { type ResolvedTarget, resolveSpaceRefs, resolveTarget } from "./resolve.js";
export {
  prepareSessionHome,
  type SessionHome,
  type SessionHomeOptions,
  sessionHomeDir,
} from "./session-home.js";
export {
  readSpace,
  type Space,
  type SpaceCodex,
  type SpaceCommand,
  type SpaceMcpServer,
  type SpaceSkill,
} from "./space-manifest.js";
export {
  type CodexTargetSettings,
  readTargets,
  type TargetDefinition,
  type TargetsFile,
} from "./targets.js";
