import type { TSchema } from "elysia";
import type { Scope } from "../access/scopes";
import type { ErrorCode } from "../errors/codes";
import type { OperationShape, SuccessStatus } from "./operation";

const MiB = 1024 * 1024;
/** Largest accepted request body unless the service says otherwise. */
export const DEFAULT_MAX_BODY_BYTES = 1 * MiB;
/**
 * The most one answer of a service carries when made whole in memory; a longer
 * one (a list of pages with large contents) is streamed as it is read.
 */
export const SERVICE_ANSWER_IN_MEMORY_MAX_BYTES = 16 * MiB;

/**
 * The services behind the gateway and what holds for all their operations:
 * how a request that breaks a schema is answered (pages 422, calendar 400),
 * and the largest body their operations take.
 */
export const PUBLIC_SERVICES = {
  pages: {
    tag: "Pages",
    description: "Pages of plain text or Markdown (`/v1/new-page`).",
    validationCode: "validation_error",
    maxBodyBytes: 10 * MiB,
  },
  calendar: {
    tag: "Calendar",
    description: "Calendars and their events (`/api/calendar/...`).",
    validationCode: "bad_request",
    maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
  },
} as const satisfies Record<string, { tag: string; description: string; validationCode: ErrorCode; maxBodyBytes: number }>;

export type ServiceName = keyof typeof PUBLIC_SERVICES;

/** A check the service makes beyond the schemas, with the error code it answers when the check fails. */
export interface OperationRule {
  code: ErrorCode;
  when: string;
}

/**
 * One public operation as written in the table. What it answers besides its
 * success follows from these facts (the gateway's checks, its body, query and
 * path, its rules), so no status is listed by hand.
 */
export interface PublicOperationSpec extends OperationShape {
  scope: Scope;
  summary: string;
  description: string;
  success: { status: SuccessStatus; description: string; schema?: TSchema };
  rules?: readonly OperationRule[];
}

export interface PublicOperation extends PublicOperationSpec {
  operationId: string;
  service: ServiceName;
  /**
   * The gateway reads every request's body up to this before forwarding: the
   * service's limit when the operation takes a body, the default otherwise.
   */
  maxBodyBytes: number;
}

type Defined<Service extends ServiceName, Specs extends Record<string, PublicOperationSpec>> = {
  [Id in keyof Specs & string]: Specs[Id] & { operationId: Id; service: Service; maxBodyBytes: number };
};

/** The operations of one service, each named by its operationId. */
export function serviceOperations<const Service extends ServiceName, const Specs extends Record<string, PublicOperationSpec>>(
  service: Service,
  specs: Specs,
): Defined<Service, Specs> {
  return Object.fromEntries(
    Object.entries(specs).map(([operationId, spec]) => [
      operationId,
      { ...spec, operationId, service, maxBodyBytes: spec.body ? PUBLIC_SERVICES[service].maxBodyBytes : DEFAULT_MAX_BODY_BYTES },
    ]),
  ) as Defined<Service, Specs>;
}
