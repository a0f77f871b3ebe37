/** Why the local control plane could not start; docs/troubleshooting/reasons.md has an entry for each. */
export const controlPlaneErrorCodes = ["go_missing", "build_failed", "start_failed", "not_ready"] as const;
export type ControlPlaneErrorCode = (typeof controlPlaneErrorCodes)[number];

export class ControlPlaneError extends Error {
  readonly code: ControlPlaneErrorCode;

  constructor(code: ControlPlaneErrorCode, message: string) {
    super(message);
    this.name = "ControlPlaneError";
    this.code = code;
  }
}
