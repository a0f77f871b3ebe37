import { gridNames } from "../../api/meta.ts";
import { resourceTypeOf } from "../shared/deps.ts";

export const gridType = resourceTypeOf(gridNames);
