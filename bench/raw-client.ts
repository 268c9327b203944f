// The floor: a bare JSON-RPC client for `codex app-server` (spawn, write lines, split on "\n") with no codex-harness code.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";

// biome-ignore lint/suspicious/noExplicitAny: a raw client reads untyped JSON.
type Message = { id?: number; method?: string; params?: any; result?: any; error?: any };

/** One `codex app-server` (or a fake speaking its protocol) driven by hand. */
export class RawClient {
  /** Called with every notification (after turn bookkeeping). */
  onNotification: ((message: Message) => void) | undefined;
  private nextId = 1;
  private rest = "";
  private readonly pending = new Map<number, (message: Message) => void>();
  private readonly turnWaiters = new Map<string, (status: string) => void>();
  private readonly exited: Promise<void>;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.exited = new Promise((resolve) => child.once("exit", () => resolve()));
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      const lines = (this.rest + chunk).split("\n");
      this.rest = lines.pop() ?? "";
      for (const line of lines) if (line !== "") this.receive(JSON.parse(line) as Message);
    });
    child.stderr.resume();
    child.stdin.on("error", () => {});
  }

  /** Spawns `command app-server` and performs `initialize` / `initialized`. */
  static async start(command: string, env: Record<string, string>): Promise<RawClient> {
    const child = spawn(command, ["app-server"], { env, stdio: "pipe" });
    const client = new RawClient(child);
    try {
      await client.request("initialize", {
        clientInfo: { name: "raw_bench", title: null, version: "0.0.0" },
        capabilities: { experimentalApi: true },
      });
      client.write({ method: "initialized" });
      return client;
    } catch (error) {
      await client.close();
      throw error;
    }
  }

  /** Sends a request; resolves with its result, rejects with its error. */
  request(method: string, params: unknown): Promise<Message["result"]> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (message) =>
        message.error ? reject(new Error(JSON.stringify(message.error))) : resolve(message.result),
      );
      this.write({ id, method, params });
    });
  }

  /** Starts a thread in `cwd`; resolves with its id. */
  async startThread(cwd: string): Promise<string> {
    const result = await this.request("thread/start", { cwd });
    return result.thread.id as string;
  }

  /** Runs one text turn and resolves with the status of its `turn/completed`. */
  runTurn(threadId: string, text: string): Promise<string> {
    const done = new Promise<string>((resolve) => this.turnWaiters.set(threadId, resolve));
    const started = this.request("turn/start", {
      threadId,
      input: [{ type: "text", text, text_elements: [] }],
    });
    return started.then(() => done);
  }

  /** Ends stdin and waits for the exit; SIGKILL after `graceMs`. */
  async close(graceMs = 2_000): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), graceMs);
    await this.exited;
    clearTimeout(timer);
  }

  private write(message: Message): void {
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  private receive(message: Message): void {
    if (message.method === undefined) {
      const resolve = this.pending.get(message.id as number);
      this.pending.delete(message.id as number);
      resolve?.(message);
      return;
    }
    if (message.id !== undefined) {
      // A server request (approval, question): this benchmark never expects one.
      this.write({ id: message.id, error: { code: -32601, message: "not handled" } });
      return;
    }
    if (message.method === "turn/completed") {
      const threadId = message.params.threadId as string;
      const resolve = this.turnWaiters.get(threadId);
      this.turnWaiters.delete(threadId);
      resolve?.(message.params.turn.status as string);
    }
    this.onNotification?.(message);
  }
}
