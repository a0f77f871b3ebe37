import { appNames } from "../../api/meta.ts";
import { objectKey } from "../../runtime/index.ts";
import { resourceTypeOf } from "../service/deps.ts";
import type { ControllerDefinition } from "../skeleton/controller.ts";
import { meaningfulChanges, secretsWatch } from "../skeleton/watches.ts";
import { projectType } from "./kind.ts";
import { projectReconciler } from "./reconciler.ts";

/** Projects: reconciled on their own changes, their credentials, and Apps coming and going (deletion waits for them). */
export const projectController: ControllerDefinition = {
  name: "project",
  type: projectType,
  setup(deps) {
    const projects = deps.informer(projectType);
    return {
      reconcile: projectReconciler(deps),
      watches: [
        secretsWatch(deps, projectType),
        {
          informer: meaningfulChanges(deps.informer(resourceTypeOf(appNames))),
          map: (app) => {
            const spec = app.spec as { projectRef?: { name?: string }; projectId?: string } | undefined;
            const status = app.status as { projectId?: string } | undefined;
            const ids = [spec?.projectId, status?.projectId].filter((id) => id !== undefined);
            return projects
              .list()
              .filter((project) => {
                const projectId = (project.status as { projectId?: string } | undefined)?.projectId;
                const byRef =
                  project.metadata.namespace === app.metadata.namespace &&
                  spec?.projectRef?.name === project.metadata.name;
                return byRef || (projectId !== undefined && ids.includes(projectId));
              })
              .map(objectKey);
          },
        },
      ],
    };
  },
};
