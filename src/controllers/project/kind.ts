import { projectNames } from "../../api/meta.ts";
import { resourceTypeOf } from "../service/deps.ts";

export const projectType = resourceTypeOf(projectNames);
