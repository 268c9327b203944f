// One trace drawn as a waterfall (as trace viewers draw one): a row per span, indented under its
// parent, its bar placed on the trace's time line, with its duration and a few attributes. For the
// docs' screenshot of a trace a collector received; every text goes in as text, not markup.

/** A span as a waterfall needs it. */
export interface WaterfallSpan {
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** Nanoseconds since the epoch. */
  startNs: bigint;
  endNs: bigint;
  /** Shown after the name (a few attribute values). */
  detail?: string;
}

function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (char) =>
      ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[char] ?? char,
  );
}

/** The spans in tree order (a parent before its children, siblings by start), with their depth. */
function inTreeOrder(spans: WaterfallSpan[]): { span: WaterfallSpan; depth: number }[] {
  const ids = new Set(spans.map((span) => span.spanId));
  const children = new Map<string | undefined, WaterfallSpan[]>();
  for (const span of spans) {
    const parent = span.parentSpanId && ids.has(span.parentSpanId) ? span.parentSpanId : undefined;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  const ordered: { span: WaterfallSpan; depth: number }[] = [];
  const visit = (parent: string | undefined, depth: number) => {
    const here = [...(children.get(parent) ?? [])].sort((a, b) =>
      a.startNs < b.startNs ? -1 : a.startNs > b.startNs ? 1 : 0,
    );
    for (const span of here) {
      ordered.push({ span, depth });
      visit(span.spanId, depth + 1);
    }
  };
  visit(undefined, 0);
  return ordered;
}

function milliseconds(ns: bigint): string {
  const ms = Number(ns) / 1e6;
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
}

/** A page drawing `spans` (one trace) under `title`. */
export function waterfallPage(title: string, spans: WaterfallSpan[]): string {
  const start = spans.reduce(
    (min, span) => (span.startNs < min ? span.startNs : min),
    spans[0]?.startNs ?? 0n,
  );
  const end = spans.reduce((max, span) => (span.endNs > max ? span.endNs : max), start + 1n);
  const total = Number(end - start);
  const rows = inTreeOrder(spans)
    .map(({ span, depth }) => {
      const left = (Number(span.startNs - start) / total) * 100;
      const width = Math.max((Number(span.endNs - span.startNs) / total) * 100, 0.3);
      return `<div class="row"><div class="name" style="padding-left:${depth * 16 + 8}px">${escapeHtml(span.name)}<span class="detail">${escapeHtml(span.detail ?? "")}</span></div><div class="time">${escapeHtml(milliseconds(span.endNs - span.startNs))}</div><div class="lane"><div class="bar d${depth % 4}" style="left:${left.toFixed(3)}%;width:${width.toFixed(3)}%"></div></div></div>`;
    })
    .join("\n");
  return `<!doctype html><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>
body{font:13px system-ui,sans-serif;margin:16px;color:#1f2328;width:1100px}
h1{font-size:15px;margin:0 0 10px}
.row{display:flex;border-bottom:1px solid #eaeef2;height:26px;align-items:center}
.name{box-sizing:border-box;flex:none;width:470px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
.detail{color:#656d76;margin-left:8px;font-size:12px}
.lane{position:relative;flex:1;height:100%}
.bar{position:absolute;top:7px;height:12px;border-radius:2px}
.d0{background:#0969da}.d1{background:#1a7f37}.d2{background:#8250df}.d3{background:#bf3989}
.time{flex:none;width:70px;text-align:right;padding-right:12px;font-size:12px;color:#656d76}
</style>
<h1>${escapeHtml(title)}</h1>
${rows}`;
}
