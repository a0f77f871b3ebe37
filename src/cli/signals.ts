/** Waits for SIGINT or SIGTERM, or for `exited` to settle first (the child died on its own). */
export function untilSignal(exited?: Promise<unknown>): Promise<"signal" | "exited"> {
  return new Promise((resolve) => {
    const onSignal = () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve("signal");
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    void exited?.then(() => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      resolve("exited");
    });
  });
}
