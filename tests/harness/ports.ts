export { freePortBlock, portIsFree } from "../../scripts/system";
