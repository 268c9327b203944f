// `codex-harness acp`: an Agent Client Protocol (v1) agent over our own Codex / Thread layer. An
// ACP session is a codex thread (its id is the session id); a prompt is a turn, its events sent
// as session updates; a cancel interrupts the turn at codex; codex's approvals are asked of the
// editor after the session's own policy (a target's permissions.toml) had its say.
import * as acp from "@agentclientprotocol/sdk";
import type * as unstable from "@agentclientprotocol/sdk/unstable";
import { composeApprovals } from "../approvals/policies.js";
import type { Codex } from "../codex.js";
import type { Approvals } from "../events/approval-types.js";
import { RpcWireError } from "../rpc/errors.js";
import type { Thread } from "../thread.js";
import { askPerson } from "./ask-person.js";
import { AUTH_METHODS, authenticate } from "./auth.js";
import { codexReads } from "./codex-reads.js";
import { availableCommands, type SlashCommand, slashCommands } from "./commands.js";
import { forkParams } from "./fork.js";
import { mcpServersConfig } from "./mcp-servers.js";
import { DEFAULT_MODE, modeSettings, modeState } from "./modes.js";
import { newSession, type PromptIo, runPrompt, type Session, sessionOf } from "./prompt-turn.js";
import { type AnsweredCommand, answerText, statusText } from "./session-commands.js";
import { checkSessionFolders } from "./session-folders.js";
import { followSessionInfo } from "./session-info.js";
import { sessionConfigOptions, setConfigOption } from "./session-options.js";
import { replayUpdates } from "./session-updates.js";
import { SessionViews } from "./session-views.js";
import {
  asksSteering,
  parseSteerRequest,
  STEERING_META,
  STEERING_METHOD,
  steeringRequest,
} from "./steering.js";
import { INITIALIZE_WAITS_MS, WarmCodex } from "./warm-codex.js";

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
  // Set at initialize when the editor renders forms (elicitation/create).
  let formsOffered = false;
  // Set at initialize when the editor asks that a prompt sent during another steer it.
  let steeringAsked = false;
  // What each session's editor was shown (tool calls, file texts, codex's warnings).
  const views = new SessionViews(options.codex);
  // codex, started when the editor connects, and what every session reads of it.
  const warm = new WarmCodex(options.codex, options.log);
  const person = askPerson({
    editor: connected,
    formsOffered: () => formsOffered,
    views,
    channels: options.channels,
    awayAfterMs: options.awayAfterMs,
    log: options.log,
  });

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
    approvals: composeApprovals(await options.policyFor?.(cwd), person(sessionId)),
    // The target's permissions and the person decide, whatever codex's config says: its auto
    // review would never ask them.
    approvalsReviewer: "user" as const,
  });

  // What sessions read of codex, read once (again after a login or logout).
  const reads = codexReads(options.codex);

  /** What the agent's own commands answer without a turn (`/status`, `/mcp`, …). */
  const agentCommand = async (
    name: "status" | "logout" | AnsweredCommand,
    session: Session,
  ): Promise<string> => {
    if (name !== "status" && name !== "logout") return answerText(name, options.codex, session);
    if (name === "logout") {
      await options.codex.logout();
      warm.forget();
      return "Logged out: codex's stored login is gone. Authenticate again to continue.";
    }
    return statusText(options.codex, session);
  };

  /** How a session's prompts reach the editor, and whether one sent during another steers it. */
  const promptIo = (client: acp.AgentContext, sessionId: string, steers: boolean): PromptIo => ({
    send: (update) => client.notify("session/update", { sessionId, update }),
    answer: agentCommand,
    steers,
    view: views.get(sessionId),
  });

  /** Refuses a session codex could not run a turn for: its provider needs a login it lacks. */
  const loggedIn = async () => {
    const login = await warm.get(reads.login);
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
    title?: string | null,
    listed?: Promise<SlashCommand[]>,
  ): Promise<acp.SessionConfigOption[]> => {
    const [commands, own, models] = await Promise.all([
      listed ?? slashCommands(options.codex, cwd, options.codexHome),
      warm.get(reads.configured),
      warm.get(reads.models).catch(() => []),
    ]);
    const session = newSession({
      thread,
      cwd,
      configured: own.settings,
      commands,
      models,
      model: model || own.model,
      ...(await followSessionInfo(options.codex, id, client, title, options.log)),
    });
    sessions.set(id, session);
    views.open(id, cwd, (update) => client.notify("session/update", { sessionId: id, update }));
    if (commands.length > 0) announce(client, id, commands);
    return sessionConfigOptions(session);
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
    sessions.get(id)?.unwatch();
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
    const config = await open(
      params.sessionId,
      thread,
      params.cwd,
      client,
      history.model,
      history.name ?? (history.preview || null),
    );
    return { modes: modeState(DEFAULT_MODE), configOptions: config };
  };

  /** The session methods beyond new and prompt; fork is ACP's unstable `session/fork`. */
  const sessionCapabilities: unstable.SessionCapabilities = {
    list: {},
    close: {},
    resume: {},
    delete: {},
    additionalDirectories: {},
    fork: {},
  };

  /** What initialize answers: the protocol, who we are, what we support, how to log in. */
  const initialized: acp.InitializeResponse = {
    protocolVersion: acp.PROTOCOL_VERSION,
    agentInfo: options.agentInfo,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities,
    },
    authMethods: AUTH_METHODS,
    _meta: STEERING_META,
  };

  return (
    acp
      .agent({ name: options.agentInfo.name })
      .onConnect((connection) => {
        editor = connection.client;
        warm.start(reads.all);
      })
      .onRequest("initialize", async ({ params }) => {
        formsOffered = Boolean(params.clientCapabilities?.elicitation?.form);
        steeringAsked = asksSteering(params.clientCapabilities?._meta);
        views.initialize(params.clientCapabilities);
        // Started at connect already (or now, where the connection opens after initialize).
        warm.start(reads.all);
        await warm.ready(INITIALIZE_WAITS_MS);
        return initialized;
      })
      .onRequest("authenticate", async ({ params }) => {
        await authenticate(options.codex, params.methodId, options.env ?? {}, (line) =>
          options.log?.(line),
        );
        warm.forget();
        return {};
      })
      .onRequest("session/new", async ({ params, client }) => {
        await checkSessionFolders(options.codex, params);
        await loggedIn();
        let id = "";
        const thread = options.codex.startThread({
          ...(await threadOptions(params.cwd, () => id, params)),
        });
        // The folder's skills are listed while codex starts the thread.
        const listed = slashCommands(options.codex, params.cwd, options.codexHome);
        // Awaited by open(); when the thread fails first, its failure is that of the session.
        listed.catch(() => undefined);
        const started = await thread.start();
        id = started.id;
        const config = await open(id, thread, params.cwd, client, started.model, undefined, listed);
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
        runPrompt(
          sessionOf(sessions, params.sessionId),
          params,
          signal,
          promptIo(client, params.sessionId, steeringAsked || asksSteering(params._meta)),
        ),
      )
      // codex-acp's steering request: into the running prompt's turn, or a prompt of its own.
      .onRequest(STEERING_METHOD, parseSteerRequest, ({ params, client }) =>
        steeringRequest(
          sessionOf(sessions, params.sessionId),
          params,
          promptIo(client, params.sessionId, true),
          options.log,
        ),
      )
      // A new session continuing a saved one (codex's thread/fork): its history, then its own.
      .onRequest("session/fork", forkParams, async ({ params, client }) => {
        await checkSessionFolders(options.codex, params);
        await loggedIn();
        let id = "";
        const source = sessions.get(params.sessionId);
        const thread = await saved(
          params.sessionId,
          options.codex.forkThread(
            params.sessionId,
            await threadOptions(params.cwd, () => id, params),
          ),
        );
        id = thread.id ?? "";
        const config = await open(id, thread, params.cwd, client, source?.model);
        return { sessionId: id, modes: modeState(DEFAULT_MODE), configOptions: config };
      })
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
      .onRequest("session/set_config_option", async ({ params, client }) => {
        const session = sessionOf(sessions, params.sessionId);
        // Applied from the session's next turn on.
        const { modeChanged } = setConfigOption(session, params.configId, String(params.value));
        if (modeChanged) {
          await client.notify("session/update", {
            sessionId: params.sessionId,
            update: { sessionUpdate: "current_mode_update", currentModeId: String(params.value) },
          });
        }
        return { configOptions: sessionConfigOptions(session) };
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
        // The mode is a config option too.
        await client.notify("session/update", {
          sessionId: params.sessionId,
          update: {
            sessionUpdate: "config_option_update",
            configOptions: sessionConfigOptions(session),
          },
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
