// A target's session home for a long-lived command (`acp`): the target installed as the project
// has it now, a session home made from it, and the spaces' permissions for a working directory.
import type { Approvals } from "../events/approval-types.js";
import { homePermissionsPolicy } from "../spaces/home-permissions.js";
import { installTarget } from "../spaces/install.js";
import { prepareSessionHome } from "../spaces/session-home.js";

/** A prepared session home of a target. */
export interface TargetHome {
  home: string;
  /** The spaces' permissions.toml rules, relative paths read from `cwd`. */
  policyFor(cwd: string): Promise<Approvals | undefined>;
}

/**
 * Installs `target` of `project` as the project has it now (an unchanged target costs no swap)
 * and prepares session `session`'s home under `aspHome`.
 */
export async function targetHome(
  project: string,
  target: string,
  session: { id: string; aspHome: string },
  log: (line: string) => void,
): Promise<TargetHome> {
  const installed = await installTarget(project, target, {
    onWarning: (message) => log(`warning: ${message}`),
  });
  if (installed.changed) log(`installed ${installed.target} -> ${installed.homeDir}`);
  const { home } = await prepareSessionHome({
    templateHome: installed.homeDir,
    aspHome: session.aspHome,
    sessionId: session.id,
    target,
  });
  return { home, policyFor: (cwd) => homePermissionsPolicy(home, cwd) };
}
