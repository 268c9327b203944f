// Starts the real pinned codex app-server against a ScriptedModel in temp folders, and records its notifications.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { AppServerClient, type AppServerClientOptions } from "../../src/app-server/client.js";
import type { ConfigObject } from "../../src/app-server/codex-config.js";
import type { RpcNotification } from "../../src/protocol/messages.js";
import type { ScriptStep } from "../../src/testing/script.js";
import { ScriptedModel } from "../../src/testing/scripted-model.js";

/** Every notification a client received, with a way to wait for one. */
export class NotificationLog {
  readonly all: RpcNotification[] = [];
  private waiters: Array<() => void> = [];

  constructor(client: AppServerClient) {
    client.onAnyNotification((notification) => {
      this.all.push(notification);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** The params of every notification of `method` so far. */
  params<T = Record<string, unknown>>(method: string): T[] {
    return this.all.filter((n) => n.method === method).map((n) => n.params as T);
  }

  /** Resolves with the first notification matching, waiting up to `timeoutMs`. */
  async waitFor(
    method: string,
    predicate: (params: Record<string, unknown>) => boolean = () => true,
    timeoutMs = 20_000,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.params(method).find(predicate);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) {
        const seen = this.all.map((n) => n.method).join(", ");
        throw new Error(`No ${method} within ${timeoutMs} ms. Seen: ${seen}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }
}

/** A codex app-server on a scripted model, with its temp CODEX_HOME and working directory. */
export interface CodexFixture {
  client: AppServerClient;
  model: ScriptedModel;
  notifications: NotificationLog;
  codexHome: string;
  workdir: string;
  close(): Promise<void>;
}

/** Starts ScriptedModel with `responses`, writes its config into a temp CODEX_HOME, starts app-server. */
export async function startCodex(
  responses: ScriptStep[] = [],
  options: { config?: ConfigObject; client?: AppServerClientOptions } = {},
): Promise<CodexFixture> {
  const root = await mkdtemp(path.join(tmpdir(), "codex-harness-it-"));
  const codexHome = path.join(root, "home");
  const workdir = path.join(root, "work");
  const model = await ScriptedModel.start({ responses });
  try {
    await model.writeCodexHome(codexHome, options.config);
    await mkdir(workdir, { recursive: true });
    const client = await AppServerClient.start({ codexHome, cwd: workdir, ...options.client });
    const notifications = new NotificationLog(client);
    return {
      client,
      model,
      notifications,
      codexHome,
      workdir,
      async close() {
        await client.close();
        await model.close();
        await rm(root, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await model.close();
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}
