import { describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { closedObject, unknownClosedMembers } from "./closed-objects";
import { mountOperations } from "./mount-operations";

const Levels = closedObject({ docs: t.Optional(t.String()), lists: t.Optional(t.String()) });
const Body = t.Object({ name: t.String(), levels: t.Optional(Levels), many: t.Optional(t.Array(Levels)) });

describe("unknown members of closed objects", () => {
  test("when a closed object has a member its schema does not name, then it is reported with its path and the names allowed", () => {
    expect(unknownClosedMembers({ name: "a", extra: 1, levels: { docs: "read", pages: "full" }, many: [{}, { tasks: "x" }] }, Body)).toEqual([
      { field: "levels.pages", rule: "unknown_field", message: "levels.pages is not an allowed field; allowed: docs, lists", allowed: ["docs", "lists"] },
      { field: "many[1].tasks", rule: "unknown_field", message: "many[1].tasks is not an allowed field; allowed: docs, lists", allowed: ["docs", "lists"] },
    ]);
  });

  test("when only open objects have unknown members, or a value is not an object, then nothing is reported", () => {
    expect(unknownClosedMembers({ name: "a", extra: 1, levels: "full" }, Body)).toEqual([]);
  });

  const app = mountOperations(
    new Elysia({ normalize: "typebox" }),
    { create: { method: "POST", path: "/things", body: Body, success: { status: 200 } } },
    { create: ({ body }) => body },
  );
  const post = (body: unknown) =>
    app.handle(new Request("http://localhost/things", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));

  test("when a served body has an unknown member in a closed object, then 422 names it; an unknown field of the body is dropped", async () => {
    const refused = await post({ name: "a", levels: { pages: "full" } });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { details: { fields: string[] } } }).error.details.fields).toEqual(["levels"]);
    for (const inherited of ["constructor", "toString", "hasOwnProperty", "valueOf"]) {
      const named = await post({ name: "a", levels: { docs: "read", [inherited]: "full" } });
      expect(named.status).toBe(422);
      expect(((await named.json()) as { error: { details: { errors: { field: string }[] } } }).error.details.errors[0]!.field).toBe(`levels.${inherited}`);
    }
    const served = await post({ name: "a", extra: 1, levels: { docs: "read" } });
    expect(await served.json()).toEqual({ name: "a", levels: { docs: "read" } });
  });
});
