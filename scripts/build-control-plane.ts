// Builds the local control plane binary if its sources changed; prints its path and the time taken.
import { ensureBinary } from "../src/control-plane/binary.ts";
import { createLogger } from "../src/telemetry/logger.ts";

const started = Date.now();
const binary = await ensureBinary({ logger: createLogger(), progress: (line) => console.log(line) });
console.log(`${binary} (${((Date.now() - started) / 1000).toFixed(1)}s)`);
