import { type Logger, pino } from "pino";

export type { Logger } from "pino";

export interface LoggerOptions {
  level?: string;
  /** Where log lines go; stderr by default so stdout stays for a command's output. */
  destination?: NodeJS.WritableStream;
}

/** Paths whose values are replaced before a line is written: credentials must never reach logs. */
const redactPaths = [
  "apiKey",
  "*.apiKey",
  "token",
  "*.token",
  "authorization",
  "*.authorization",
  "headers.authorization",
  "*.headers.authorization",
];

export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    { level: options.level ?? "info", redact: { paths: redactPaths, censor: "[redacted]" } },
    options.destination ?? pino.destination(2),
  );
}
