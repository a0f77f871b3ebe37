export type ControlPlaneErrorCode = "go_missing" | "build_failed" | "start_failed" | "not_ready";

export class ControlPlaneError extends Error {
  readonly code: ControlPlaneErrorCode;

  constructor(code: ControlPlaneErrorCode, message: string) {
    super(message);
    this.name = "ControlPlaneError";
    this.code = code;
  }
}
