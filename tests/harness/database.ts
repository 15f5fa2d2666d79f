export { throwawayStorage as testStorage, type ThrowawayStorage as TestStorage } from "../../scripts/system";
