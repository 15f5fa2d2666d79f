export { createRouteTable, type RouteMatch, type RouteTable } from "@ws/shared";
