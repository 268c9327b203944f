// The stop paths of the SDK: an AbortSignal (stdio, exec, remote), `thread.interrupt()` and a turn
// handle's `interrupt()`.
import { setTimeout as sleep } from "node:timers/promises";
import { type Host, startHost } from "../src/app-server/host.js";
import { Codex } from "../src/codex.js";
import type { Thread } from "../src/thread.js";
import type { CampaignWorld, StopPath, StopResult } from "./campaign.js";

type ExtendedCodex = Codex<"extended">;

/** Approvals answered late: a stop that lands meanwhile must still win. */
const lateAccept = {
  commandExecution: async () => {
    await sleep(60);
    return "accept" as const;
  },
};

/** What the SDK paths share: a Codex on the campaign's model, a new thread per turn. */
abstract class SdkPath implements StopPath {
  abstract readonly name: string;
  protected codex: ExtendedCodex | undefined;
  protected world: CampaignWorld | undefined;

  async open(world: CampaignWorld): Promise<void> {
    this.world = world;
    this.codex = await this.makeCodex(world);
  }

  protected async makeCodex(world: CampaignWorld): Promise<ExtendedCodex> {
    return new Codex({ events: "extended", codexHome: world.codexHome, approvals: lateAccept });
  }

  protected thread(): Thread<"extended"> {
    if (!this.codex || !this.world) throw new Error("the path is not open");
    return this.codex.startThread({
      workingDirectory: this.world.workdir,
      skipGitRepoCheck: true,
    });
  }

  abstract stopOne(prompt: string, offsetMs: number): Promise<StopResult>;

  async close(): Promise<void> {
    await this.codex?.close();
  }
}

/** `thread.run(prompt, { signal })`, the signal aborted at the offset. */
class SignalPath extends SdkPath {
  constructor(
    readonly name: string,
    private readonly transport: "app-server" | "exec" = "app-server",
  ) {
    super();
  }

  protected override async makeCodex(world: CampaignWorld): Promise<ExtendedCodex> {
    if (this.transport === "exec") {
      // exec cannot answer approvals: full access, none asked.
      return new Codex({
        events: "extended",
        transport: "exec",
        codexHome: world.codexHome,
        config: { sandbox_mode: "danger-full-access", approval_policy: "never" },
      });
    }
    return super.makeCodex(world);
  }

  async stopOne(prompt: string, offsetMs: number): Promise<StopResult> {
    const thread = this.thread();
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error("soak stop")), offsetMs);
    try {
      await thread.run(prompt, { signal: controller.signal });
      return { told: "completed", ...idOf(thread) };
    } catch (error) {
      const stopped = (error as Error).name === "AbortError";
      return { told: stopped ? "stopped" : "failed", detail: String(error), ...idOf(thread) };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A remote codex (`host`), stopped by an AbortSignal. */
class RemotePath extends SignalPath {
  private host: Host | undefined;

  constructor() {
    super("remote");
  }

  protected override async makeCodex(world: CampaignWorld): Promise<ExtendedCodex> {
    this.host = await startHost({ listen: "ws://127.0.0.1:0", codexHome: world.codexHome });
    return new Codex({
      events: "extended",
      approvals: lateAccept,
      remote: { url: this.host.url, tokenFile: this.host.secretFile as string },
    });
  }

  override async close(): Promise<void> {
    await super.close();
    await this.host?.close();
  }
}

/** `thread.runStreamed()`, then `thread.interrupt()` at the offset. */
class ThreadInterruptPath extends SdkPath {
  readonly name = "thread-interrupt";

  async stopOne(prompt: string, offsetMs: number): Promise<StopResult> {
    const thread = this.thread();
    const { events } = await thread.runStreamed(prompt);
    let status: string | undefined;
    const reading = (async () => {
      for await (const event of events) {
        if (event.type === "turn.completed") status = event.status;
        if (event.type === "turn.failed") status = "failed";
      }
    })();
    await sleep(offsetMs);
    const interrupted = thread.interrupt().then(
      () => undefined,
      (error: unknown) => error,
    );
    const [error] = await Promise.all([interrupted, reading.catch((failure: unknown) => failure)]);
    if (error) return { told: "failed", detail: String(error), ...idOf(thread) };
    return interruptedOrNot(status, thread);
  }
}

/** `thread.turn()`, then the handle's `interrupt()` at the offset, then its `result()`. */
class TurnHandlePath extends SdkPath {
  readonly name = "turn-handle";

  async stopOne(prompt: string, offsetMs: number): Promise<StopResult> {
    const thread = this.thread();
    const asked = Date.now();
    const handle = await thread.turn(prompt);
    await sleep(Math.max(0, offsetMs - (Date.now() - asked)));
    try {
      await handle.interrupt();
      const result = await handle.result();
      return interruptedOrNot(result.status, thread);
    } catch (error) {
      return { told: "failed", detail: String(error), ...idOf(thread) };
    }
  }
}

function idOf(thread: Thread<"extended">): { threadId?: string } {
  return thread.id === null ? {} : { threadId: thread.id };
}

function interruptedOrNot(status: string | undefined, thread: Thread<"extended">): StopResult {
  return status === "interrupted"
    ? { told: "stopped", ...idOf(thread) }
    : {
        told: status === "completed" ? "completed" : "failed",
        detail: `status ${status}`,
        ...idOf(thread),
      };
}

/** The SDK's stop paths, by name. */
export const sdkPaths: Record<string, () => StopPath> = {
  stdio: () => new SignalPath("stdio"),
  exec: () => new SignalPath("exec", "exec"),
  remote: () => new RemotePath(),
  "thread-interrupt": () => new ThreadInterruptPath(),
  "turn-handle": () => new TurnHandlePath(),
};
