import { serverOrderNames } from "../../api/meta.ts";
import { resourceTypeOf } from "../shared/deps.ts";

export const serverOrderType = resourceTypeOf(serverOrderNames);
