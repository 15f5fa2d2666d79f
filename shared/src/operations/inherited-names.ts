import type { TSchema } from "elysia";

/**
 * TypeBox's clean-up, which drops a body's or query's unknown fields before the
 * check, asks `name in schema.properties`: a member named after a property of
 * Object.prototype (`constructor`, `toString`, `__proto__`) passed for a declared
 * field, stayed, and the check then refused it as unknown_field. Such members
 * are dropped here first, at every depth the clean-up reaches (objects and
 * array items), so they go as any other unknown field does. Mutates `value`.
 */
export function dropInheritedNames(value: unknown, schema: TSchema | undefined): void {
  if (schema === undefined || value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    const items = schema.items as TSchema | undefined;
    if (items !== undefined && !Array.isArray(items)) for (const item of value) dropInheritedNames(item, items);
    return;
  }
  const properties = schema.properties as Record<string, TSchema> | undefined;
  if (properties === undefined) return;
  const members = value as Record<string, unknown>;
  for (const name of Object.keys(members)) {
    if (Object.hasOwn(properties, name)) dropInheritedNames(members[name], properties[name]);
    else if (name in properties) delete members[name];
  }
}
