import { appNames } from "../../api/meta.ts";
import { resourceTypeOf } from "../service/deps.ts";

export const appType = resourceTypeOf(appNames);
