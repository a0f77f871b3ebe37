import { gridNames } from "../../api/meta.ts";
import { resourceTypeOf } from "../service/deps.ts";

export const gridType = resourceTypeOf(gridNames);
