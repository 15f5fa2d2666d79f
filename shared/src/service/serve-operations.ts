import type { AnyElysia } from "elysia";
import type { Deadline } from "../http/deadline";
import type { Principal } from "../principal/principal";
import { mountOperations } from "../operations/mount-operations";
import {
  PUBLIC_OPERATION_LIST,
  type PublicHandlers,
  type PublicOperations,
  type ServiceContext,
  type ServiceOperationId,
} from "../operations/public-operations";
import type { ServiceName } from "../operations/public-operation";

/**
 * Serves the service's operations of the public table, each from its
 * operationId's handler, with the route and schemas of its table entry. The
 * app must already derive the principal (requirePrincipal) and the deadline
 * (requestDeadline).
 */
export function serveOperations<App extends AnyElysia, Service extends ServiceName>(
  app: App,
  service: Service,
  handlers: PublicHandlers<ServiceOperationId<Service>>,
): App {
  const operations = Object.fromEntries(
    PUBLIC_OPERATION_LIST.filter((operation) => operation.service === service).map((operation) => [operation.operationId, operation]),
  ) as Pick<PublicOperations, ServiceOperationId<Service>>;
  return mountOperations(app, operations, handlers, (context): ServiceContext => ({ principal: context.principal as Principal, deadline: context.deadline as Deadline }));
}
