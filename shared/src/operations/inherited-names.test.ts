import { describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { dropInheritedNames } from "./inherited-names";
import { mountOperations } from "./mount-operations";

const Body = t.Object({ title: t.String(), items: t.Optional(t.Array(t.Object({ name: t.String() }))) });
const Query = t.Object({ q: t.Optional(t.String()) });
const INHERITED = ["constructor", "toString", "hasOwnProperty", "valueOf", "__proto__"];

describe("dropping members named after Object.prototype", () => {
  test("when a body has them at the top or in array items, then they go and every other member stays", () => {
    const body = JSON.parse('{"title":"a","constructor":1,"toString":2,"foo":3,"items":[{"name":"n","hasOwnProperty":4}]}');
    dropInheritedNames(body, Body);
    expect(body).toEqual({ title: "a", foo: 3, items: [{ name: "n" }] });
  });

  test("when a member's schema declares no properties, then its value is kept whole", () => {
    const body = { title: { constructor: 1 } };
    dropInheritedNames(body, Body);
    expect(body).toEqual({ title: { constructor: 1 } });
  });
});

describe("an operation served with TypeBox's clean-up", () => {
  const app = mountOperations(
    new Elysia({ normalize: "typebox" }),
    {
      create: { method: "POST", path: "/things", body: Body, success: { status: 200 } },
      list: { method: "GET", path: "/things", query: Query, success: { status: 200 } },
    },
    { create: ({ body }) => body, list: ({ query }) => query },
  );

  test.each(["foo", ...INHERITED])("when the body has a member named %s, then it is ignored like any unknown field", async (name) => {
    const response = await app.handle(
      new Request("http://localhost/things", { method: "POST", headers: { "content-type": "application/json" }, body: `{"title":"a",${JSON.stringify(name)}:1}` }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ title: "a" });
  });

  test.each(["foo", ...INHERITED])("when the query has a parameter named %s, then it is ignored like any unknown parameter", async (name) => {
    const response = await app.handle(new Request(`http://localhost/things?q=x&${name}=1`));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ q: "x" });
  });
});
