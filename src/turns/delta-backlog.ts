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
  /** The unread output deltas, oldest first (from `outputHead`). */
  private output: ItemDeltaEvent[] = [];
  private outputHead = 0;
  private readonly joined = new Map<ItemDeltaEvent, Joined>();
  /** The last joined event that is full: the next delta starts another. */
  private full: ItemDeltaEvent | undefined;
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
    const last = this.unread > JOIN_AFTER ? this.queue.lastQueued : undefined;
    const joined =
      last?.type === "item.delta" &&
      last !== this.full &&
      sameStream(last, event) &&
      this.join(last, event.delta, size);
    if (!joined) {
      // Listed before it is queued: a waiting reader takes it at once (see `taken`).
      if (droppable) this.output.push(event);
      this.queue.push(event);
    }
    if (droppable && this.unreadOutputBytes > this.maxOutputBytes) this.dropOldestOutput();
  }

  /** The reader takes `event`: a joined delta gets its whole text now. */
  taken(event: ExtendedThreadEvent): void {
    if (event.type !== "item.delta") return;
    const droppable = DROPPABLE.has(event.stream);
    const joined = this.joined.size > 0 ? this.joined.get(event) : undefined;
    let size: number;
    if (joined) {
      this.joined.delete(event);
      event.delta = joined.bytes.toString("utf8", joined.start, joined.end);
      size = joined.counted;
      this.release(joined);
    } else {
      size = sizeOf(event.delta, droppable);
    }
    this.unread -= size;
    if (!droppable) return;
    this.unreadOutputBytes -= size;
    if (this.output[this.outputHead] === event) this.advanceOutput();
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

  /** Appends `text` to the unread event `last`; false when it does not fit (`last` is full then). */
  private join(last: ItemDeltaEvent, text: string, size: number): boolean {
    let joined = this.joined.get(last);
    if (!joined) {
      joined = this.bufferOf(last.delta, sizeOf(last.delta, DROPPABLE.has(last.stream)));
      this.joined.set(last, joined);
      last.delta = "";
    }
    // At most 3 UTF-8 bytes per UTF-16 unit: sure to fit whole.
    if (joined.end + text.length * 3 > joined.bytes.length) {
      this.full = last;
      return false;
    }
    joined.end += joined.bytes.write(text, joined.end, "utf8");
    joined.counted += size;
    return true;
  }

  /** Drops unread output, oldest first (whole UTF-8 characters), until it fits the budget again. */
  private dropOldestOutput(): void {
    while (this.unreadOutputBytes > this.maxOutputBytes && this.outputHead < this.output.length) {
      const oldest = this.output[this.outputHead] as ItemDeltaEvent;
      let joined = this.joined.get(oldest);
      if (!joined) {
        joined = this.bufferOf(oldest.delta, sizeOf(oldest.delta, true));
        this.joined.set(oldest, joined);
        oldest.delta = "";
      }
      const excess = this.unreadOutputBytes - this.maxOutputBytes;
      let cut: number;
      if (excess >= joined.end - joined.start) {
        cut = joined.end - joined.start;
        this.queue.discard(oldest);
        this.joined.delete(oldest);
        this.release(joined);
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
    this.output[this.outputHead++] = undefined as unknown as ItemDeltaEvent;
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
