// Reading a server-sent event stream in tests: each message (its id, event name and JSON data) as it
// arrives, waited for with a deadline.

/** One message of a stream. */
export interface SseMessage {
  id: string | undefined;
  event: string;
  data: unknown;
}

/** An open stream: the messages so far, and a wait for the next one that matches. */
export interface SseMessages {
  readonly status: number;
  readonly received: SseMessage[];
  /** Resolves with the first message (received so far or later) that `matches`; rejects after `timeoutMs`. */
  waitFor(
    what: string,
    matches: (message: SseMessage) => boolean,
    timeoutMs?: number,
  ): Promise<SseMessage>;
  /** Resolves once the server ends the stream (rejects after `timeoutMs`). */
  ended(timeoutMs?: number): Promise<void>;
  close(): void;
}

/** Opens `url` as an event stream with `headers` (the bearer token, `last-event-id`). */
export async function openSse(url: string, headers: Record<string, string>): Promise<SseMessages> {
  const stop = new AbortController();
  const response = await fetch(url, { headers, signal: stop.signal });
  const received: SseMessage[] = [];
  const waiters = new Set<() => void>();
  let done = false;
  const reading = (async () => {
    if (!response.ok || !response.body) return;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done: end } = await reader.read();
      if (end) return;
      buffer += value;
      let at = buffer.indexOf("\n\n");
      while (at !== -1) {
        const block = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        const message: SseMessage = { id: undefined, event: "message", data: undefined };
        let data = "";
        for (const line of block.split("\n")) {
          if (line.startsWith("id: ")) message.id = line.slice(4);
          else if (line.startsWith("event: ")) message.event = line.slice(7);
          else if (line.startsWith("data: ")) data += line.slice(6);
        }
        if (data) {
          message.data = JSON.parse(data);
          received.push(message);
          for (const wake of waiters) wake();
        }
        at = buffer.indexOf("\n\n");
      }
    }
  })()
    .catch(() => undefined)
    .finally(() => {
      done = true;
      for (const wake of waiters) wake();
    });
  const until = <T>(what: string, check: () => T | undefined, timeoutMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const wake = () => {
        const found = check();
        if (found !== undefined) finish(() => resolve(found));
        else if (done) finish(() => reject(new Error(`${what}: the stream ended first`)));
      };
      const timer = setTimeout(
        () => finish(() => reject(new Error(`${what}: not within ${timeoutMs} ms`))),
        timeoutMs,
      );
      const finish = (settle: () => void) => {
        clearTimeout(timer);
        waiters.delete(wake);
        settle();
      };
      waiters.add(wake);
      wake();
    });
  return {
    status: response.status,
    received,
    waitFor: (what, matches, timeoutMs = 10_000) =>
      until(what, () => received.find(matches), timeoutMs),
    ended: async (timeoutMs = 10_000) => {
      await until("the stream ends", () => (done ? true : undefined), timeoutMs);
      await reading;
    },
    close: () => stop.abort(),
  };
}
