import { appNames, serverOrderNames } from "../../api/meta.ts";
import type { KubeObject } from "../../runtime/index.ts";
import { resolvedSecret } from "../credentials/usage.ts";
import { resourceTypeOf, secretLookup } from "../service/deps.ts";
import { secretType } from "../service/secrets.ts";
import type { ControllerDefinition } from "../skeleton/controller.ts";
import { lookAtBalance } from "./balance.ts";
import { BalanceBook } from "./book.ts";

const costedKinds = [appNames, serverOrderNames];

/**
 * Balance, spend and runway per credential: one look per credentials Secret in use, again every few
 * minutes and whenever a resource using it changes (its cost may have). Feeds the cost metrics.
 */
export const billingController: ControllerDefinition = {
  name: "billing",
  type: secretType,
  setup(deps) {
    const secrets = deps.informer(secretType);
    const lookup = secretLookup(deps);
    const secretOf = (object: KubeObject) => resolvedSecret(object, deps.credentials, lookup);
    const kinds = costedKinds.map((names) => {
      const informer = deps.informer(resourceTypeOf(names));
      return { kind: names.kind, informer, list: () => informer.list() };
    });
    const book = new BalanceBook(kinds, secretOf);
    deps.costMetrics?.track(book);
    return {
      reconcile: ({ key }) => lookAtBalance(deps, book, secrets.get(key), key),
      watches: kinds.map(({ informer }) => ({
        informer,
        map: (object: KubeObject) => {
          const secret = secretOf(object);
          return secret === undefined ? [] : [secret];
        },
      })),
    };
  },
};
