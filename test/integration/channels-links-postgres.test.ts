// Chat users linked to people on a real PostgreSQL: the same cases as on SQLite (made, refused,
// removed with the person, audited), and a link made through one store seen at once by another
// sharing the database.
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { People } from "../../src/channels/people.js";
import { PostgresInteractionStore } from "../../src/channels/postgres-store.js";
import { LINK_CASES } from "../support/people-links-cases.js";
import { postgresForFile } from "../support/postgres-file.js";

const { missing, url: postgresUrl } = postgresForFile();
const stores: PostgresInteractionStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

/** A store on the file's database with nobody in it (people are shared by the whole database). */
async function emptyStore(): Promise<PostgresInteractionStore> {
  const store = await PostgresInteractionStore.open(postgresUrl());
  stores.push(store);
  const people = new People(store.people);
  for (const person of await people.list()) await people.remove(person.id);
  return store;
}

describe("links on PostgreSQL", { skip: missing }, () => {
  for (const [name, body] of LINK_CASES) {
    it(name, async () => {
      const store = await emptyStore();
      await body({ people: new People(store.people), audit: store.audit });
    });
  }

  it("a link made through one store holds at once on another sharing the database, and so does its removal", async () => {
    const one = new People((await emptyStore()).people);
    const second = await PostgresInteractionStore.open(postgresUrl());
    stores.push(second);
    const other = new People(second.people);
    await one.add({ id: "alice", groups: ["release"] });
    await one.link("alice", "discord:80351110224678912");
    assert.deepEqual((await other.linkedPerson("discord:80351110224678912"))?.groups, ["release"]);
    await assert.rejects(other.link("alice", "discord:80351110224678912x"), {
      code: "invalid_input",
    });
    await one.remove("alice");
    assert.equal(await other.linkedPerson("discord:80351110224678912"), undefined);
  });
});
