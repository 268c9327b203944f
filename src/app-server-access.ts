// codex.appServer: typed access to every client method, with helpers for the common ones.
import type { AppServerClient, ParamsArg } from "./app-server/client.js";
import type { ClientMethod, ClientParams, ClientResult } from "./protocol/types.js";
import type { RequestOptions } from "./rpc/peer.js";

/**
 * The app-server behind a `Codex`. `request()` is typed for every client method of the pinned
 * protocol; the helpers name the common ones (thread history, models, config, skills, commands).
 */
export class AppServerAccess {
  /** @internal Created by `Codex`. */
  constructor(private readonly connect: () => Promise<AppServerClient>) {}

  /** The running client (the process is started on first use). */
  client(): Promise<AppServerClient> {
    return this.connect();
  }

  /** Sends any client method of the pinned protocol. */
  async request<M extends ClientMethod>(
    method: M,
    ...args: ParamsArg<M>
  ): Promise<ClientResult<M>> {
    return (await this.connect()).request(method, ...args);
  }

  /** Lists saved threads (`thread/list`). */
  listThreads(params: ClientParams<"thread/list"> = {}) {
    return this.request("thread/list", params);
  }

  /** Reads a thread, optionally with its turns (`thread/read`). */
  readThread(threadId: string, params: Omit<ClientParams<"thread/read">, "threadId"> = {}) {
    return this.request("thread/read", { threadId, ...params });
  }

  /** Forks a thread into a new one (`thread/fork`). */
  forkThread(threadId: string, params: Omit<ClientParams<"thread/fork">, "threadId"> = {}) {
    return this.request("thread/fork", { threadId, ...params });
  }

  /** Archives a thread (`thread/archive`). */
  archiveThread(threadId: string) {
    return this.request("thread/archive", { threadId });
  }

  /** Starts compacting a thread's history (`thread/compact/start`). */
  compactThread(threadId: string) {
    return this.request("thread/compact/start", { threadId });
  }

  /** Starts a code review turn (`review/start`). */
  startReview(params: ClientParams<"review/start">) {
    return this.request("review/start", params);
  }

  /** Lists the models codex offers (`model/list`). */
  listModels(params: ClientParams<"model/list"> = {}) {
    return this.request("model/list", params);
  }

  /** Reads the effective config (`config/read`). */
  readConfig(params: ClientParams<"config/read"> = {}) {
    return this.request("config/read", params);
  }

  /** Writes one config value (`config/value/write`). */
  writeConfigValue(params: ClientParams<"config/value/write">) {
    return this.request("config/value/write", params);
  }

  /** Lists the skills codex found (`skills/list`). */
  listSkills(params: ClientParams<"skills/list"> = {}) {
    return this.request("skills/list", params);
  }

  /** Runs one command in codex's sandbox, without a thread (`command/exec`). */
  execCommand(params: ClientParams<"command/exec">, options?: RequestOptions) {
    return this.request("command/exec", params, options);
  }
}
