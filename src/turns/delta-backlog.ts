// What a turn keeps of the deltas its reader has not taken yet: bounded whatever the reader does,
// without losing the answer.
import type { WithRaw } from "../events/raw.js";
import type {
  DeltaStream,
  ExtendedThreadEvent,
  ItemDeltaEvent,
  NoticeEvent,
} from "../events/types.js";
import type { EventQueue } from "./event-queue.js";

/**
 * Unread delta text past which consecutive deltas of one item and stream are joined. A reader
 * that keeps up is never this far behind (codex's lines come at most 64 KiB at a time, and the
 * reader runs between two reads), so it sees every delta as codex sent it.
 */
const JOIN_AFTER = 128 * 1024;
/**
 * A joined event's text waits as UTF-8 in a buffer of this size, outside the JavaScript heap: a
 * lagging reader then keeps no per-delta objects alive (which would make V8 grow its young
 * generation by tens of MiB), and the next delta that does not fit starts another event.
 */
const JOINED_BYTES = 64 * 1024;
/**
 * The most UTF-8 bytes of joined text the reader gets in one event (the rest follows as another):
 * about codex's own largest deltas. The reader holds its event while it works on it, and a short
 * text then costs little if a collection catches it.
 */
const TAKEN_BYTES = 16 * 1024;
/** How many emptied buffers are kept for reuse. */
const MAX_SPARE = 16;
/** The streams whose unread text may be dropped (oldest first) past the budget: program output. */
const DROPPABLE: ReadonlySet<DeltaStream> = new Set(["command_output", "file_change_output"]);

/** The text of a joined (or trimmed) event until the reader takes it: `bytes[start, end)`. */
interface Joined {
  bytes: Buffer;
  start: number;
  end: number;
  /** What its text counts in `unread` (UTF-8 bytes for output, characters otherwise). */
  counted: number;
}

type Queue = EventQueue<WithRaw<ExtendedThreadEvent>>;

/**
 * Queues a turn's deltas for its reader. While the reader lags (more than {@link JOIN_AFTER}
 * unread), a delta is joined to the last unread one of the same item and stream, so a paused
 * reader costs about the unread text, not an event per delta, and gets every character in order.
 * Command (and file-change) output beyond `maxOutputBytes` unread (UTF-8) is dropped oldest
 * first, and {@link droppedNotice} says how much before the item completes; the answer, reasoning
 * and plan are never dropped.
 */
export class DeltaBacklog {
  /** Unread delta text: UTF-8 bytes of output, characters of the rest (only compared to JOIN_AFTER). */
  private unread = 0;
  private unreadOutputBytes = 0;
  /**
   * The queue's sequence numbers of the unread output deltas, oldest first (from `outputHead`).
   * Numbers, not the events: a stale copy of this list then keeps no event alive (see EventQueue).
   */
  private output: number[] = [];
  private outputHead = 0;
  /** The text of joined events, by their sequence number in the queue. */
  private readonly joined = new Map<number, Joined>();
  /** The sequence number of the last joined event that is full: the next delta starts another. */
  private fullSeq = -1;
  private readonly dropped = new Map<string, number>();
  /** Buffers of taken or dropped events, to be used again: no garbage outside the heap. */
  private readonly spare: Buffer[] = [];

  constructor(
    private readonly queue: Queue,
    private readonly maxOutputBytes: number,
  ) {}

  /** Queues a delta (joined to the last unread one, or its oldest output dropped, as above). */
  add(event: ItemDeltaEvent): void {
    const droppable = DROPPABLE.has(event.stream);
    const size = sizeOf(event.delta, droppable);
    this.unread += size;
    if (droppable) this.unreadOutputBytes += size;
    const lastSeq = this.unread > JOIN_AFTER ? this.queue.lastSeq : undefined;
    const last = lastSeq === undefined ? undefined : this.queue.at(lastSeq);
    const joined =
      last?.type === "item.delta" &&
      lastSeq !== this.fullSeq &&
      sameStream(last, event) &&
      this.join(lastSeq as number, last, event.delta, size);
    if (!joined) {
      // -1: a waiting reader took it at once.
      const seq = this.queue.push(event);
      if (droppable && seq >= 0) this.output.push(seq);
    }
    if (droppable && this.unreadOutputBytes > this.maxOutputBytes) this.dropOldestOutput();
  }

  /**
   * The reader takes `event` (queued as `seq`, or -1). A joined delta is handed over as a new
   * event with its whole text: the queued one has waited long enough to be in V8's old generation,
   * and text written into it would live on through young-generation collections after the reader
   * dropped it, until the next full one.
   */
  taken<T extends ExtendedThreadEvent>(event: T, seq: number): T {
    if (event.type !== "item.delta") return event;
    const droppable = DROPPABLE.has(event.stream);
    const joined = this.joined.size > 0 ? this.joined.get(seq) : undefined;
    let given: T = event;
    let size: number;
    let rest = false;
    if (joined) {
      let end = joined.end;
      if (end - joined.start > TAKEN_BYTES) {
        end = joined.start + TAKEN_BYTES;
        while (((joined.bytes[end] as number) & 0xc0) === 0x80) end--;
      }
      const text = joined.bytes.toString("utf8", joined.start, end);
      given = { ...event, delta: text };
      size = droppable ? end - joined.start : text.length;
      rest = end < joined.end;
      if (rest) {
        joined.start = end;
        joined.counted -= size;
        this.queue.putBack(seq, event);
      } else {
        this.joined.delete(seq);
        this.release(joined);
      }
    } else {
      size = sizeOf(event.delta, droppable);
    }
    this.unread -= size;
    if (droppable) {
      this.unreadOutputBytes -= size;
      if (!rest && seq >= 0 && this.output[this.outputHead] === seq) this.advanceOutput();
    }
    return given;
  }

  /**
   * The notice for output of `itemId` that was dropped unread, once: to be queued before the
   * item's completion.
   */
  droppedNotice(
    itemId: string,
    scope: { thread_id: string; turn_id?: string },
  ): NoticeEvent | undefined {
    const bytes = this.dropped.get(itemId);
    if (bytes === undefined) return undefined;
    this.dropped.delete(itemId);
    return {
      type: "notice",
      ...scope,
      code: "deltas_dropped",
      message: `The reader fell behind, so the oldest ${bytes} unread bytes of item ${itemId}'s output were dropped to bound memory; its completed item has the whole output codex kept.`,
      item_id: itemId,
      dropped_bytes: bytes,
    };
  }

  /**
   * Appends `text` to the unread event `last` (queued as `seq`); false when it does not fit
   * (`last` is full then).
   */
  private join(seq: number, last: ItemDeltaEvent, text: string, size: number): boolean {
    const joined = this.joinedOf(seq, last);
    // At most 3 UTF-8 bytes per UTF-16 unit: sure to fit whole, else counted.
    const room = joined.bytes.length - joined.end;
    if (text.length * 3 > room && Buffer.byteLength(text, "utf8") > room) {
      this.fullSeq = seq;
      return false;
    }
    joined.end += joined.bytes.write(text, joined.end, "utf8");
    joined.counted += size;
    return true;
  }

  /** Drops unread output, oldest first (whole UTF-8 characters), until it fits the budget again. */
  private dropOldestOutput(): void {
    while (this.unreadOutputBytes > this.maxOutputBytes && this.outputHead < this.output.length) {
      const seq = this.output[this.outputHead] as number;
      const oldest = this.queue.at(seq) as ItemDeltaEvent;
      const joined = this.joinedOf(seq, oldest);
      const excess = this.unreadOutputBytes - this.maxOutputBytes;
      let cut: number;
      if (excess >= joined.end - joined.start) {
        cut = joined.end - joined.start;
        this.joined.delete(seq);
        this.release(joined);
        // Its number may be given again.
        if (this.fullSeq === seq) this.fullSeq = -1;
        this.queue.discard(seq);
        this.advanceOutput();
      } else {
        let start = joined.start + excess;
        while (start < joined.end && ((joined.bytes[start] as number) & 0xc0) === 0x80) start++;
        cut = start - joined.start;
        joined.start = start;
        joined.counted -= cut;
      }
      this.unread -= cut;
      this.unreadOutputBytes -= cut;
      this.dropped.set(oldest.item_id, (this.dropped.get(oldest.item_id) ?? 0) + cut);
    }
  }

  /** The joined text of the unread event `event` (queued as `seq`), moved to a buffer if not yet. */
  private joinedOf(seq: number, event: ItemDeltaEvent): Joined {
    let joined = this.joined.get(seq);
    if (!joined) {
      joined = this.bufferOf(event.delta, sizeOf(event.delta, DROPPABLE.has(event.stream)));
      this.joined.set(seq, joined);
      event.delta = "";
    }
    return joined;
  }

  /** `text` as UTF-8 in a buffer of {@link JOINED_BYTES} (a spare one if any), or of its size. */
  private bufferOf(text: string, counted: number): Joined {
    const length = Buffer.byteLength(text, "utf8");
    const bytes =
      length > JOINED_BYTES
        ? Buffer.allocUnsafeSlow(length)
        : (this.spare.pop() ?? Buffer.allocUnsafeSlow(JOINED_BYTES));
    return { bytes, start: 0, end: bytes.write(text, 0, "utf8"), counted };
  }

  /** Keeps a joined event's buffer for another (a few at most: the rest are left to the GC). */
  private release(joined: Joined): void {
    if (joined.bytes.length === JOINED_BYTES && this.spare.length < MAX_SPARE) {
      this.spare.push(joined.bytes);
    }
  }

  private advanceOutput(): void {
    this.outputHead++;
    if (this.outputHead > 1024 && this.outputHead * 2 > this.output.length) {
      this.output = this.output.slice(this.outputHead);
      this.outputHead = 0;
    }
  }
}

/** What a delta counts: UTF-8 bytes for output (its budget is in bytes), characters otherwise. */
function sizeOf(text: string, droppable: boolean): number {
  return droppable ? Buffer.byteLength(text, "utf8") : text.length;
}

function sameStream(a: ItemDeltaEvent, b: ItemDeltaEvent): boolean {
  return (
    a.item_id === b.item_id &&
    a.stream === b.stream &&
    a.summary_index === b.summary_index &&
    a.content_index === b.content_index
  );
}
