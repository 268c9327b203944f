// `codex-harness people …`: the people and programs who may use a channels runtime with tokens of
// their own, and the chat users linked to them, managed on its store (the data directory's SQLite,
// or PostgreSQL with --store).
import type { Command } from "commander";
import type { People } from "../channels/people.js";
import { checkPlatformUser, type PersonLink } from "../channels/people-links.js";
import type { Person, TokenRecord } from "../channels/people-types.js";
import { CodexHarnessError } from "../errors.js";
import { addStoreFlags, type StoreFlags, useStore } from "./store-flags.js";

/** Adds `people` and its subcommands to the program. */
export function addPeopleCommands(program: Command): void {
  const people = addStoreFlags(
    program
      .command("people")
      .description(
        "Manage who may use the channels runtime: people and programs, their groups, and their tokens' scopes",
      ),
    "them",
  );

  const withPeople = <T>(work: (people: People) => Promise<T>): Promise<T> =>
    usePeople(people.opts<StoreFlags>(), work);

  people
    .command("add <id>")
    .description("Add a person (or with --program, a program): lowercase id, e.g. alice")
    .option("--name <name>", "the name shown for them (default: the id)")
    .option("--group <group>", "a group they belong to (repeatable)", collect, [])
    .option("--program", "a program (a service identity), not a person")
    .action(async (id: string, flags: { name?: string; group: string[]; program?: boolean }) => {
      const added = await withPeople((all) =>
        all.add({
          id,
          groups: flags.group,
          kind: flags.program ? "program" : "person",
          ...(flags.name === undefined ? {} : { name: flags.name }),
        }),
      );
      console.log(personLine(added));
    });

  people
    .command("list")
    .description(
      "List people and programs, with their tokens (ids and scopes, never secrets) and linked chat users",
    )
    .option("--json", "print JSON")
    .action(async (flags: { json?: boolean }) => {
      const [everyone, tokens, links] = await withPeople((all) =>
        Promise.all([all.list(), all.tokens(), all.links()]),
      );
      const listed = everyone.map((person) => ({
        ...person,
        tokens: tokens.filter((token) => token.personId === person.id),
        links: links.filter((link) => link.personId === person.id),
      }));
      if (flags.json) {
        console.log(JSON.stringify(listed, null, 2));
        return;
      }
      if (listed.length === 0) {
        console.log("Nobody yet: only the data directory's token (admin) works.");
        return;
      }
      for (const person of listed) {
        console.log(personLine(person));
        for (const token of person.tokens) console.log(`  ${tokenLine(token)}`);
        for (const link of person.links) console.log(`  ${linkLine(link)}`);
      }
    });

  people
    .command("token <id>")
    .description("Issue a token of a person or program; prints it once, on stdout")
    .requiredOption(
      "--scope <scopes>",
      "what it may do, comma-separated: read, answer, create, operate, admin",
    )
    .action(async (id: string, flags: { scope: string }) => {
      const issued = await withPeople((all) => all.issueToken(id, flags.scope));
      console.error(
        `token ${issued.record.id} of ${id} (${issued.record.scopes.join(", ")}): shown once, keep it secret; revoke it with \`codex-harness people revoke ${issued.record.id}\`.`,
      );
      console.log(issued.token);
    });

  people
    .command("revoke <token-id>")
    .description("Revoke a token: refused from its next request on")
    .action(async (tokenId: string) => {
      const revoked = await withPeople((all) => all.revoke(tokenId));
      console.log(tokenLine(revoked));
    });

  people
    .command("link <person> <platform-users...>")
    .description(
      "Link chat users to a person (slack:U024BE7LH, telegram:123456789, discord:80351110224678912): their answers from that chat are the person's",
    )
    .action(async (id: string, platformUsers: string[]) => {
      // All checked before any is linked: a typo links nothing.
      for (const platformUser of platformUsers) checkPlatformUser(platformUser);
      await withPeople(async (all) => {
        for (const platformUser of platformUsers) {
          const link = await all.link(id, platformUser);
          console.log(`linked ${link.platformUser} to ${link.personId}`);
        }
      });
    });

  people
    .command("unlink <platform-user>")
    .description("Unlink a chat user: from their next click on, they answer as themselves")
    .action(async (platformUser: string) => {
      const link = await withPeople((all) => all.unlink(platformUser));
      console.log(`unlinked ${link.platformUser} from ${link.personId}`);
    });

  people
    .command("remove <id>")
    .description("Remove a person or program, and every token and link of theirs")
    .action(async (id: string) => {
      await withPeople((all) => all.remove(id));
      console.log(`removed ${id} and their tokens and links`);
    });
}

/**
 * Opens the store of `flags` (the data directory's SQLite, or PostgreSQL), works on its people,
 * closes it. The audit log records the changes as the admin's, from the CLI.
 */
async function usePeople<T>(flags: StoreFlags, work: (people: People) => Promise<T>): Promise<T> {
  const { People } = await import("../channels/people.js");
  return useStore(flags, async (store) => {
    if (!store.people) {
      throw new CodexHarnessError("invalid_option", "This store keeps no people.");
    }
    return work(new People(store.people, { surface: "cli" }));
  });
}

function personLine(person: Person): string {
  const groups = person.groups.length > 0 ? `  groups: ${person.groups.join(", ")}` : "";
  return `${person.id}  ${person.kind.padEnd(7)}  ${person.name}${groups}`;
}

function tokenLine(token: TokenRecord): string {
  const state = token.revokedAt ? `revoked ${token.revokedAt}` : "active";
  return `token ${token.id}  ${token.scopes.join(",")}  created ${token.createdAt}  ${state}`;
}

function linkLine(link: PersonLink): string {
  return `linked ${link.platformUser}  since ${link.createdAt}`;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
