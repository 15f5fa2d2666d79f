import { Elysia } from "elysia";
import type { AdminDeps } from "../admin-context";
import { CreateMemberBody, UpdateMemberBody } from "./model";
import { addMember, changeMember } from "./service";

export function memberRoutes(deps: AdminDeps) {
  return new Elysia()
    .post(
      "/admin/v1/workspaces/:ws/members",
      async ({ params, body, set }) => {
        const member = await addMember(deps, params.ws, body);
        set.status = 201;
        return member;
      },
      { body: CreateMemberBody },
    )
    .patch("/admin/v1/workspaces/:ws/members/:id", ({ params, body }) => changeMember(deps, params.ws, params.id, body), {
      body: UpdateMemberBody,
    });
}
