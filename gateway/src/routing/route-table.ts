export { allowedMethods, createRouteTable, type RouteMatch, type RouteTable } from "@ws/shared";
