// Which people, programs and groups a routing names that the store does not know — the check of
// every interaction's creation, kept cheap: a principal found in the store is taken as known for a
// few seconds without asking again. Only what was found is remembered: someone just added counts at
// once. Someone just removed may still pass the check for those seconds; that is harmless, since
// answers are checked against who answers, read from the store each time.
import type { Routing } from "./interaction-types.js";
import type { PeopleStore } from "./people-store.js";
import { namedPrincipals, unknownPrincipals } from "./routing.js";

/** How long a principal found in the store is taken as known (5 s). */
const KNOWN_FOR_MS = 5_000;
/** Most principals remembered; past it, all are forgotten. */
const MOST = 10_000;

/** A runtime's memory of the principals its store knows (see the file's comment). */
export class KnownPrincipals {
  /** `id` or `group:<id>` → until when it is taken as known (ms). */
  private readonly found = new Map<string, number>();

  constructor(
    private readonly store: PeopleStore | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** The principals of `routing` the store does not know, in the order it names them. */
  async unknownIn(routing: Routing): Promise<string[]> {
    const now = this.now();
    const named = namedPrincipals(routing);
    const fresh = (key: string) => (this.found.get(key) ?? 0) > now;
    const ids = named.ids.filter((id) => !fresh(id));
    const groups = named.groups.filter((group) => !fresh(`group:${group}`));
    if (ids.length === 0 && groups.length === 0) return [];
    const known = this.store ? await this.store.known(ids, groups) : { ids: [], groups: [] };
    if (this.found.size > MOST) this.found.clear();
    for (const id of known.ids) this.found.set(id, now + KNOWN_FOR_MS);
    for (const group of known.groups) this.found.set(`group:${group}`, now + KNOWN_FOR_MS);
    return unknownPrincipals(routing, {
      ids: [...known.ids, ...named.ids.filter((id) => !ids.includes(id))],
      groups: [...known.groups, ...named.groups.filter((group) => !groups.includes(group))],
    });
  }
}
