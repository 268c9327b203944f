// `codex-harness acp`: an Agent Client Protocol (v1) agent over our own Codex / Thread layer. An
// ACP session is a codex thread (its id is the session id); a prompt is a turn, its events sent
// as session updates; a cancel interrupts the turn at codex; codex's approvals are asked of the
// editor after the session's own policy (a target's permissions.toml) had its say.
import * as acp from "@agentclientprotocol/sdk";
import { readLogin } from "../app-server/login.js";
import { composeApprovals } from "../approvals/policies.js";
import { routingHooksOf } from "../approvals/routed.js";
import type { Codex } from "../codex.js";
import type { ApprovalRequest, Approvals } from "../events/approval-types.js";
import { RpcWireError } from "../rpc/errors.js";
import type { Thread } from "../thread.js";
import type { SandboxMode } from "../turns/options.js";
import { AUTH_METHODS, authenticate } from "./auth.js";
import { availableCommands, type SlashCommand, slashCommands } from "./commands.js";
import { firstAnswer } from "./follow-person.js";
import type { AskForm } from "./forms.js";
import { governedByChannels } from "./governed-requests.js";
import { mcpServersConfig } from "./mcp-servers.js";
import { codexModels, configOptions, MODEL_OPTION } from "./models.js";
import { DEFAULT_MODE, type ModeSettings, modeSettings, modeState } from "./modes.js";
import { type AskEditor, editorApprovals } from "./permissions.js";
import { runPrompt, type Session, sessionOf } from "./prompt-turn.js";
import { checkSessionFolders } from "./session-folders.js";
import { replayUpdates } from "./session-updates.js";
import { SessionViews } from "./session-views.js";

/** What the agent needs from the command that runs it. */
export interface AcpAgentOptions {
  /** The Codex every session's thread runs on (extended events). */
  codex: Codex<"extended">;
  /** This agent's name and version, for `initialize`. */
  agentInfo: { name: string; version: string };
  /** Decides before the editor is asked, per session working directory (e.g. permissions.toml). */
  policyFor?: (cwd: string) => Promise<Approvals | undefined>;
  /**
   * Also ask people through a channels runtime: the first answer, editor or channels, wins (see
   * follow-person.ts). When they route by rules (`channelsApprovals({ rules })`, or
   * `routedApprovals(…)` of them), a request a rule governs goes to channels only, never to the
   * editor, whose person the runtime cannot authenticate (see governed-requests.ts).
   */
  channels?: Approvals;
  /** The agent's environment, for the API key of `authenticate` (never written to). */
  env?: Record<string, string | undefined>;
  /** The codex home whose `prompts/` become slash commands (with the skills codex finds). */
  codexHome?: string;
  /** With `channels`: after this long without an answer in the editor, ask channels only. */
  awayAfterMs?: number;
  /** Where the agent says what went wrong (stderr: stdout is the protocol's). */
  log?: (line: string) => void;
}

/** An ACP agent app: connect it to a stream (`ndJsonStream` over stdio) to serve an editor. */
export function acpAgent(options: AcpAgentOptions): acp.AgentApp {
  const sessions = new Map<string, Session>();
  // Set when the connection opens: how the agent calls the editor.
  let editor: acp.AgentContext | undefined;
  const connected = (): acp.AgentContext => {
    if (!editor) throw new Error("the editor is not connected");
    return editor;
  };
  // A cleared request (the turn stopped, codex withdrew it) stops waiting for the editor.
  const until = (signal: AbortSignal) => ({
    cancellationSignal: signal,
    stopWaitingOnCancel: true,
  });
  const ask: AskEditor = (request, signal) =>
    connected().request("session/request_permission", request, until(signal));
  // Set at initialize when the editor renders forms (elicitation/create).
  let formsOffered = false;
  // What each session's editor was shown (tool calls, file texts, codex's warnings).
  const views = new SessionViews(options.codex);
  const askForm: AskForm = (request, signal) =>
    connected().request("elicitation/create", request, until(signal));

  /** Tells the editor, as a thought, why a request is not asked there. */
  const tell = (sessionId: string, text: string, request: ApprovalRequest) => {
    void connected()
      .notify("session/update", {
        sessionId,
        update: {
          sessionUpdate: "agent_thought_chunk",
          content: { type: "text", text },
          messageId: `routing-${String(request.request_id)}`,
        },
      })
      .catch((error: Error) => options.log?.(`acp: could not tell the editor: ${error.message}`));
  };

  /**
   * Who is asked when no policy decides: the editor, and channels when given; a request the
   * channels approvals' rules govern, channels alone.
   */
  const askPerson = (sessionId: () => string): Approvals => {
    const forms = () => (formsOffered ? askForm : undefined);
    const editor = editorApprovals(sessionId, ask, forms, views);
    const { channels } = options;
    if (!channels) return editor;
    const raced = firstAnswer(editor, channels, {
      ...(options.awayAfterMs !== undefined ? { awayAfterMs: options.awayAfterMs } : {}),
    });
    const routing = routingHooksOf(channels);
    if (!routing || routing.rules.length === 0) return raced;
    return governedByChannels(channels, raced, routing, (text, request) =>
      tell(sessionId(), text, request),
    );
  };

  /** A session's thread options: its folder, the editor's MCP servers, its policy, the person. */
  const threadOptions = async (
    cwd: string,
    sessionId: () => string,
    request: { mcpServers?: acp.McpServer[]; additionalDirectories?: string[] },
  ) => ({
    workingDirectory: cwd,
    ...(request.additionalDirectories?.length
      ? { additionalDirectories: request.additionalDirectories }
      : {}),
    ...(request.mcpServers?.length ? { config: mcpServersConfig(request.mcpServers) } : {}),
    // The editor's workspace is the person's choice: no git repository check.
    skipGitRepoCheck: true,
    approvals: composeApprovals(await options.policyFor?.(cwd), askPerson(sessionId)),
    // The target's permissions and the person decide, whatever codex's config says: its auto
    // review would never ask them.
    approvalsReviewer: "user" as const,
  });

  /**
   * codex's own sandbox and approval policy (its config), what "As configured" goes back to, and
   * its model.
   */
  const configured = async (): Promise<{ settings: ModeSettings; model: string }> => {
    // A codex that cannot say (an older or fake app-server): its defaults.
    const { config } = (await options.codex.appServer
      .readConfig()
      .catch(() => ({ config: {} }))) as {
      config: {
        sandbox_mode?: SandboxMode | null;
        approval_policy?: unknown;
        model?: string | null;
      };
    };
    const policy = config.approval_policy;
    return {
      settings: {
        sandboxMode: config.sandbox_mode ?? "read-only",
        approvalPolicy: policy === "never" ? "never" : "on-request",
      },
      model: config.model ?? "",
    };
  };

  /** What `/status` and `/logout` answer, without a turn. */
  const agentCommand = async (name: "status" | "logout", session: Session): Promise<string> => {
    if (name === "logout") {
      await options.codex.logout();
      return "Logged out: codex's stored login is gone. Authenticate again to continue.";
    }
    const login = await readLogin(await options.codex.appServer.client(), 20_000);
    return [
      `Session ${session.thread.id ?? "(not started)"}`,
      `Model: ${session.model || "as configured"}`,
      `Mode: ${session.mode ?? DEFAULT_MODE}`,
      `Login: ${login.detail}`,
    ].join("\n");
  };

  /** Refuses a session codex could not run a turn for: its provider needs a login it lacks. */
  const loggedIn = async () => {
    const login = await readLogin(await options.codex.appServer.client(), 20_000);
    if (login.state === "missing") {
      throw acp.RequestError.authRequired(
        undefined,
        `codex is not logged in and its model provider needs it: authenticate (${AUTH_METHODS.map((m) => m.id).join(", ")}), or run codex login`,
      );
    }
  };

  /** Keeps a started or loaded session, and tells the editor its slash commands (just after). */
  const open = async (
    id: string,
    thread: Thread<"extended">,
    cwd: string,
    client: acp.AgentContext,
    model: string | null | undefined,
  ): Promise<acp.SessionConfigOption[]> => {
    const [commands, own, models] = await Promise.all([
      slashCommands(options.codex, cwd, options.codexHome),
      configured(),
      codexModels(options.codex).catch(() => []),
    ]);
    const session: Session = {
      thread,
      turn: undefined,
      mode: undefined,
      configured: own.settings,
      commands,
      models,
      model: model || own.model,
      modelChosen: false,
    };
    sessions.set(id, session);
    views.open(id, cwd, (update) => client.notify("session/update", { sessionId: id, update }));
    if (commands.length > 0) announce(client, id, commands);
    return session.model ? configOptions(models, session.model) : [];
  };

  /** The session's slash commands, just after the response that names the session. */
  const announce = (client: acp.AgentContext, id: string, commands: SlashCommand[]) => {
    setTimeout(() => {
      void client
        .notify("session/update", {
          sessionId: id,
          update: {
            sessionUpdate: "available_commands_update",
            availableCommands: availableCommands(commands),
          },
        })
        .catch((error: Error) =>
          options.log?.(`acp: could not send the commands: ${error.message}`),
        );
    }, 0);
  };

  /** Forgets a session here; its running prompt stops (and answers cancelled). */
  const forget = (id: string, why: string) => {
    sessions.get(id)?.turn?.abort(new Error(why));
    sessions.delete(id);
    views.forget(id);
  };

  /** codex's answer about saved thread `id`: its refusal (no such thread) is ACP's not found. */
  const saved = <T>(id: string, asked: Promise<T>): Promise<T> =>
    asked.catch((error: unknown) => {
      if (error instanceof RpcWireError && !error.overloaded) {
        throw acp.RequestError.sessionNotFound(id);
      }
      throw error;
    });

  /** A saved session opened again: its history replayed as updates when `replay`. */
  const reopen = async (
    params: acp.LoadSessionRequest | acp.ResumeSessionRequest,
    client: acp.AgentContext,
    replay: boolean,
  ) => {
    await checkSessionFolders(options.codex, params);
    await loggedIn();
    const { thread: history } = await saved(
      params.sessionId,
      options.codex.appServer.readThread(params.sessionId, { includeTurns: replay }),
    );
    const thread = options.codex.resumeThread(
      params.sessionId,
      await threadOptions(params.cwd, () => params.sessionId, params),
    );
    if (replay) {
      for (const update of replayUpdates(history.turns ?? [])) {
        await client.notify("session/update", { sessionId: params.sessionId, update });
      }
    }
    const config = await open(params.sessionId, thread, params.cwd, client, history.model);
    return { modes: modeState(DEFAULT_MODE), configOptions: config };
  };

  /** What initialize answers: the protocol, who we are, what we support, how to log in. */
  const initialized: acp.InitializeResponse = {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: options.agentInfo,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities: {
        list: {},
        close: {},
        resume: {},
        delete: {},
        additionalDirectories: {},
      },
    },
    authMethods: AUTH_METHODS,
  };

  return (
    acp
      .agent({ name: options.agentInfo.name })
      .onConnect((connection) => {
        editor = connection.client;
      })
      .onRequest("initialize", async ({ params }) => {
        formsOffered = Boolean(params.clientCapabilities?.elicitation?.form);
        views.initialize(params.clientCapabilities);
        return initialized;
      })
      .onRequest("authenticate", async ({ params }) => {
        await authenticate(options.codex, params.methodId, options.env ?? {}, (line) =>
          options.log?.(line),
        );
        return {};
      })
      .onRequest("session/new", async ({ params, client }) => {
        await checkSessionFolders(options.codex, params);
        await loggedIn();
        let id = "";
        const thread = options.codex.startThread({
          ...(await threadOptions(params.cwd, () => id, params)),
        });
        const started = await thread.start();
        id = started.id;
        const config = await open(id, thread, params.cwd, client, started.model);
        return { sessionId: id, modes: modeState(DEFAULT_MODE), configOptions: config };
      })
      // The saved thread, shown again as updates (load) or not (resume); then it continues.
      .onRequest("session/load", ({ params, client }) => reopen(params, client, true))
      .onRequest("session/resume", ({ params, client }) => reopen(params, client, false))
      .onRequest("session/delete", async ({ params }) => {
        // Gone from codex's saved threads (and so from session/list); not saved there: not found.
        forget(params.sessionId, "the session was deleted");
        await saved(
          params.sessionId,
          options.codex.appServer.request("thread/delete", { threadId: params.sessionId }),
        );
        return {};
      })
      .onRequest("session/prompt", ({ params, client, signal }) =>
        runPrompt(sessionOf(sessions, params.sessionId), params, signal, {
          send: (update) =>
            client.notify("session/update", { sessionId: params.sessionId, update }),
          answer: agentCommand,
          view: views.get(params.sessionId),
        }),
      )
      .onRequest("session/list", async ({ params }) => {
        // codex's saved threads, newest first, a page at a time (its cursor is ours).
        const page = await options.codex.appServer.listThreads({
          ...(params.cwd ? { cwd: params.cwd } : {}),
          ...(params.cursor ? { cursor: params.cursor } : {}),
          limit: 50,
        });
        return {
          sessions: page.data.map((thread) => ({
            sessionId: thread.id,
            cwd: thread.cwd,
            title: thread.name ?? (thread.preview || null),
            updatedAt: new Date(thread.updatedAt * 1000).toISOString(),
          })),
          ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
        };
      })
      .onRequest("session/close", async ({ params }) => {
        // The thread stays saved, to load again; one not open here is not found.
        sessionOf(sessions, params.sessionId);
        forget(params.sessionId, "the session was closed");
        return {};
      })
      .onRequest("session/set_config_option", async ({ params }) => {
        const session = sessionOf(sessions, params.sessionId);
        const value = String(params.value);
        if (params.configId !== MODEL_OPTION || !session.models.some((m) => m.value === value)) {
          throw acp.RequestError.invalidParams(
            undefined,
            params.configId !== MODEL_OPTION
              ? `no config option ${JSON.stringify(params.configId)}: there is "${MODEL_OPTION}"`
              : `no model ${JSON.stringify(value)}: use one of ${session.models.map((m) => m.value).join(", ")}`,
          );
        }
        // Applied from the session's next turn on.
        session.model = value;
        session.modelChosen = true;
        return { configOptions: configOptions(session.models, session.model) };
      })
      .onRequest("session/set_mode", async ({ params, client }) => {
        const session = sessionOf(sessions, params.sessionId);
        if (!modeSettings(params.modeId, session.configured)) {
          throw acp.RequestError.invalidParams(
            undefined,
            `no mode ${JSON.stringify(params.modeId)}: use ${modeState(DEFAULT_MODE)
              .availableModes.map((mode) => mode.id)
              .join(", ")}`,
          );
        }
        // Applied from the session's next turn on.
        session.mode = params.modeId;
        await client.notify("session/update", {
          sessionId: params.sessionId,
          update: { sessionUpdate: "current_mode_update", currentModeId: params.modeId },
        });
        return {};
      })
      .onNotification("session/cancel", async ({ params }) => {
        // A notification has no answer: an unknown session is only said on stderr.
        const session = sessions.get(params.sessionId);
        if (!session) options.log?.(`acp: session/cancel: no session ${params.sessionId} here`);
        session?.turn?.abort(new Error("cancelled by the editor"));
      })
  );
}
