import type { AnyElysia } from "elysia";
import { releaseWhenAnswered } from "../http/answer-holds";
import { deadlineOf } from "../http/deadline";
import { principalOf } from "../http/require-principal";
import { entityTag, noneMatchHits } from "../http/entity-tag";
import { mountOperations, type OperationResult } from "../operations/mount-operations";
import { fillPath } from "../operations/operation";
import {
  PUBLIC_OPERATION_LIST,
  type PublicHandlers,
  type PublicOperations,
  type ServiceContext,
  type ServiceOperationId,
  resourcePathOf,
} from "../operations/public-operations";
import { PUBLIC_SERVICES, type ServiceName } from "../operations/public-operation";

/** A single resource as answered: its id and the instant of its last change name its version. */
function versionOf(result: unknown): { id: string; updatedAt: string } | undefined {
  if (result === null || typeof result !== "object") return undefined;
  const { id, updated_at: updatedAt } = result as { id?: unknown; updated_at?: unknown };
  return typeof id === "string" && typeof updatedAt === "string" ? { id, updatedAt } : undefined;
}

/**
 * The headers that travel with a single resource: its `ETag`, and on a 201 the
 * `Location` it can be read at. A GET whose `If-None-Match` names the current
 * tag answers 304 with no body.
 */
function answerWithVersion({ operation, request, result }: OperationResult) {
  const version = versionOf(result);
  if (!version) return undefined;
  const etag = entityTag(version.id, version.updatedAt);
  if (operation.method === "GET" && noneMatchHits(request.headers.get("if-none-match"), etag)) {
    return { response: new Response(null, { status: 304, headers: { etag } }) };
  }
  const headers: Record<string, string> = { etag };
  const location = operation.success.status === 201 ? resourcePathOf(operation.path) : undefined;
  if (location) headers.location = fillPath(location, { id: version.id });
  return { headers };
}

/**
 * Serves the service's operations of the public table, each from its
 * operationId's handler, with the route and schemas of its table entry. The
 * app must already check the principal (requirePrincipal); the deadline is the
 * one the service's front started when the request arrived.
 */
export function serveOperations<App extends AnyElysia, Service extends ServiceName>(
  app: App,
  service: Service,
  handlers: PublicHandlers<ServiceOperationId<Service>>,
): App {
  const operations = Object.fromEntries(
    PUBLIC_OPERATION_LIST.filter((operation) => operation.service === service).map((operation) => [operation.operationId, operation]),
  ) as Pick<PublicOperations, ServiceOperationId<Service>>;
  return mountOperations(app, operations, handlers, {
    context: ({ request }): ServiceContext => ({
      principal: principalOf(request as Request),
      deadline: deadlineOf(request as Request),
      ifMatch: (request as Request).headers.get("if-match") ?? undefined,
      holdUntilAnswered: (hold) => releaseWhenAnswered(request as Request, hold),
    }),
    validationCode: PUBLIC_SERVICES[service].validationCode,
    answer: answerWithVersion,
  });
}
