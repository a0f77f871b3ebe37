import { projectNames } from "../../api/meta.ts";
import { resourceTypeOf } from "../shared/deps.ts";

export const projectType = resourceTypeOf(projectNames);
