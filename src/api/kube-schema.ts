import type { z } from "zod";

/**
 * Helpers that attach Kubernetes schema extensions to zod schemas. Each rule is written once here
 * and enforced twice: by the apiserver (the CRD generator copies the metadata into the schema) and
 * by zod (so the operator refuses exactly what the apiserver refuses, e.g. objects stored before
 * a rule existed).
 */

/** Reasons the apiserver accepts on a validation rule; they pick the error's wording. */
export type CelReason =
  | "FieldValueInvalid"
  | "FieldValueForbidden"
  | "FieldValueRequired"
  | "FieldValueDuplicate";

/** One entry of `x-kubernetes-validations`: a CEL expression with `self` bound to the value. */
export interface CelRule {
  rule: string;
  message: string;
  /** Field the error is reported on, relative to `self`, e.g. `.image`. */
  fieldPath?: string;
  reason?: CelReason;
}

export interface Rule<T> extends CelRule {
  /**
   * The same rule in TypeScript. Omitted only for transition rules (those using `oldSelf`), which
   * need the previous object and so can only be checked by the apiserver.
   */
  holds?: (value: T) => boolean;
}

const validationsKey = "x-kubernetes-validations";
const listTypeKey = "x-kubernetes-list-type";
const listMapKeysKey = "x-kubernetes-list-map-keys";

/** Adds validation rules to a schema, for the apiserver (CEL) and for zod (refinements). */
export function withRules<S extends z.ZodType>(schema: S, rules: readonly Rule<z.output<S>>[]): S {
  const existing = (schema.meta()?.[validationsKey] as CelRule[] | undefined) ?? [];
  let result = schema.meta({ [validationsKey]: [...existing, ...rules.map(celOnly)] });
  for (const rule of rules) {
    const { holds } = rule;
    if (holds)
      result = result.refine((value) => holds(value), {
        message: rule.message,
        path: zodPath(rule.fieldPath),
      });
  }
  return result;
}

function celOnly({ rule, message, fieldPath, reason }: CelRule): CelRule {
  return { rule, message, ...(fieldPath ? { fieldPath } : {}), ...(reason ? { reason } : {}) };
}

function zodPath(fieldPath: string | undefined): string[] {
  return fieldPath ? fieldPath.split(".").filter((part) => part !== "") : [];
}

/**
 * A transition rule: once the object exists, `field` cannot be added, changed or removed. (Written
 * with has() rather than optionals: the apiserver's cost estimate for optional equality is far higher.)
 */
export function immutableField(field: string, message: string): CelRule {
  return {
    rule: `has(self.${field}) == has(oldSelf.${field}) && (!has(self.${field}) || self.${field} == oldSelf.${field})`,
    message,
    fieldPath: `.${field}`,
  };
}

/** A list whose items are identified by `key` (`listType: map`): the apiserver refuses duplicates. */
export function listMap<S extends z.ZodArray<z.ZodObject>>(list: S, key: string): S {
  return list
    .meta({ [listTypeKey]: "map", [listMapKeysKey]: [key] })
    .refine((items) => unique(items.map((item) => (item as Record<string, unknown>)[key])), {
      message: `each ${key} may appear only once`,
    });
}

/** A list of unique scalar values (`listType: set`). */
export function listSet<S extends z.ZodArray<z.ZodType<string>>>(list: S): S {
  return list
    .meta({ [listTypeKey]: "set" })
    .refine((items) => unique(items), { message: "values must be unique" });
}

function unique(values: readonly unknown[]): boolean {
  return new Set(values).size === values.length;
}
