import { appNames } from "../../api/meta.ts";
import { resourceTypeOf } from "../shared/deps.ts";

export const appType = resourceTypeOf(appNames);
