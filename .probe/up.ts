import { startSystem } from "../tests/harness/system";
import { seedTenant } from "../tests/harness/tenant";
const system = await startSystem();
const key = await (await seedTenant(system)).key();
console.log(JSON.stringify({ baseUrl: system.baseUrl, key }));
await Bun.sleep(240_000);
await system.stop();
