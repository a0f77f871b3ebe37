export type ApiErrorCode =
  /** A zod schema uses something a structural CRD schema cannot express. */
  | "unsupported_schema"
  /** A field has no description, so `kubectl explain` would show nothing. */
  | "missing_description"
  /** A CRD file is not a CustomResourceDefinition berth can apply. */
  | "invalid_crd_file"
  /** The apiserver refused a CRD. */
  | "crd_rejected"
  /** A CRD was accepted but did not become Established in time. */
  | "crd_not_established";

export class ApiError extends Error {
  readonly code: ApiErrorCode;

  constructor(code: ApiErrorCode, message: string) {
    super(message);
    this.name = "ApiError";
    this.code = code;
  }
}
