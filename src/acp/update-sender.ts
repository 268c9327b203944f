// Sends a turn's session updates in order, joining text chunks that come faster than they can be
// written: consecutive chunks of one message (answer or reasoning) waiting for the next write go
// out as one chunk with the joined text — every character, in order, in fewer messages, and what
// waits for a slow editor stays one growing chunk, not a queue of messages.
import type * as acp from "@agentclientprotocol/sdk";

type Chunk = Extract<
  acp.SessionUpdate,
  { sessionUpdate: "agent_message_chunk" | "agent_thought_chunk" }
>;

function isTextChunk(update: acp.SessionUpdate): update is Chunk {
  return (
    (update.sessionUpdate === "agent_message_chunk" ||
      update.sessionUpdate === "agent_thought_chunk") &&
    update.content.type === "text"
  );
}

/** Queues updates for one session; `flush()` once the turn ends. */
export class UpdateSender {
  private pending: Chunk | undefined;
  /** The waiting chunk's text, in pieces (joined once, when it is sent). */
  private pieces: string[] = [];
  private scheduled = false;
  private inFlight = 0;
  private sending: Promise<void> = Promise.resolve();

  constructor(private readonly send: (update: acp.SessionUpdate) => Promise<void>) {}

  /** Adds an update: a text chunk may join the one waiting; anything else goes after it. */
  push(update: acp.SessionUpdate): void {
    if (isTextChunk(update)) {
      const waiting = this.pending;
      if (
        waiting &&
        waiting.sessionUpdate === update.sessionUpdate &&
        waiting.messageId === update.messageId &&
        update.content.type === "text"
      ) {
        this.pieces.push(update.content.text);
        return;
      }
      this.release();
      this.pending = update;
      this.pieces = update.content.type === "text" ? [update.content.text] : [];
      this.schedule();
      return;
    }
    this.release();
    this.enqueue(update);
  }

  /** Sends what waits; resolves once everything pushed so far is written. */
  async flush(): Promise<void> {
    this.release();
    await this.sending;
  }

  /** The waiting chunk, sent now (in order, before what comes next). */
  private release(): void {
    const chunk = this.pending;
    if (!chunk) return;
    this.pending = undefined;
    const text = this.pieces.length === 1 ? (this.pieces[0] as string) : this.pieces.join("");
    this.pieces = [];
    this.enqueue({ ...chunk, content: { type: "text", text } });
  }

  private enqueue(update: acp.SessionUpdate): void {
    this.inFlight++;
    this.sending = this.sending
      .then(() => this.send(update))
      .finally(() => {
        // Written: what gathered meanwhile goes next, as one chunk.
        if (--this.inFlight === 0) this.release();
      });
  }

  /**
   * Lets chunks gather until the event loop turns (what arrived in one read joins), or, while a
   * write is under way, until it is done: a slow editor gets fewer, longer chunks.
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.inFlight === 0) this.release();
    });
  }
}
