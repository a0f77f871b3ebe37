import { appNames, gridNames, projectNames, serverOrderNames } from "../../api/meta.ts";
import { ensureFinalizer, type KubeObject, Outcome, removeFinalizer } from "../../runtime/index.ts";
import { resourceTypeOf, secretLookup } from "../service/deps.ts";
import { secretType } from "../service/secrets.ts";
import type { ControllerDefinition } from "../skeleton/controller.ts";
import { credentialsInUse, resolvedSecret, secretInUse } from "./usage.ts";

const kinds = [appNames, projectNames, gridNames, serverOrderNames].map(resourceTypeOf);

/**
 * Keeps a finalizer on each credentials Secret while a berth resource depends on it (Crossplane's
 * ProviderConfigUsage pattern): deleting the Secret first (a namespace teardown, a GitOps prune)
 * then waits until berth's resources have used it to delete their external objects.
 */
export const credentialsController: ControllerDefinition = {
  name: "credentials",
  type: secretType,
  setup(deps) {
    const secrets = deps.informer(secretType);
    const resources = kinds.map((type) => ({ type, informer: deps.informer(type) }));
    const lookup = secretLookup(deps);
    const resolve = (object: KubeObject) => resolvedSecret(object, deps.credentials, lookup);
    // The resources that may read the Secret, from the index: never a scan of every resource.
    const readers = (key: string) =>
      resources.flatMap(({ type, informer }) =>
        deps.secrets.users(type, key).flatMap((user) => informer.get(user) ?? []),
      );
    return {
      async reconcile({ key }) {
        const secret = secrets.get(key);
        if (secret === undefined) return Outcome.done();
        const inUse = secretInUse(key, readers(key), resolve);
        const held = (secret.metadata.finalizers ?? []).includes(credentialsInUse);
        // No finalizer can be added to an object already being deleted.
        if (inUse && !held && secret.metadata.deletionTimestamp === undefined) {
          await ensureFinalizer(deps.kube, secretType, secret, credentialsInUse);
        } else if (!inUse && held) {
          await removeFinalizer(deps.kube, secretType, secret, credentialsInUse);
        }
        return Outcome.done();
      },
      watches: resources.map(({ informer }) => ({
        informer,
        map: (object: KubeObject) => {
          const key = resolve(object);
          return key === undefined ? [] : [key];
        },
      })),
    };
  },
};
