import { serverOrderNames } from "../../api/meta.ts";
import { resourceTypeOf } from "../service/deps.ts";

export const serverOrderType = resourceTypeOf(serverOrderNames);
