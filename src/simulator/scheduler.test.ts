import { describe, expect, it } from "vitest";
import { Scheduler } from "./scheduler.ts";

describe("Scheduler", () => {
  it("runs due tasks in time order, each at its own instant, including tasks they schedule", () => {
    const scheduler = new Scheduler();
    const ran: string[] = [];
    scheduler.schedule(30, (at) => ran.push(`c@${at}`));
    scheduler.schedule(10, (at) => {
      ran.push(`a@${at}`);
      scheduler.schedule(at + 5, (next) => ran.push(`a2@${next}`));
    });
    scheduler.schedule(10, (at) => ran.push(`b@${at}`));
    scheduler.schedule(100, (at) => ran.push(`late@${at}`));
    scheduler.runDue(50);
    expect(ran).toEqual(["a@10", "b@10", "a2@15", "c@30"]);
    scheduler.runDue(100);
    expect(ran.at(-1)).toBe("late@100");
  });
});
