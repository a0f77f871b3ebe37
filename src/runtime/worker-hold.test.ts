import { describe, expect, it } from "vitest";
import { Slots } from "./slots.ts";
import { WorkerHold } from "./worker-hold.ts";

function deferred<T = void>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** One worker, held by the reconcile under test; `free()` tells whether another key could take it now. */
async function oneWorker() {
  const workers = new Slots(1);
  await workers.take();
  const changes: boolean[] = [];
  const hold = new WorkerHold(workers, (holding) => changes.push(holding));
  const free = async () => {
    let took = false;
    void workers.take().then(() => {
      took = true;
      workers.give();
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    return took;
  };
  return { workers, hold, changes, free };
}

describe("WorkerHold", () => {
  it("gives the worker back once while calls of one reconcile wait side by side, and takes it back once", async () => {
    const { hold, changes, free } = await oneWorker();
    const a = deferred<string>();
    const b = deferred<string>();
    const both = Promise.all([hold.whileWaiting(a.promise), hold.whileWaiting(b.promise)]);
    await new Promise((resolve) => setTimeout(resolve, 1));
    expect(await free()).toBe(true);
    a.resolve("a");
    b.resolve("b");
    await expect(both).resolves.toEqual(["a", "b"]);
    expect(changes).toEqual([false, true]);
    expect(await free()).toBe(false);
    hold.end();
    expect(await free()).toBe(true);
  });

  it("a call still waiting when the reconcile ended leaves the workers as they are once it answers", async () => {
    const { hold, free } = await oneWorker();
    const late = deferred();
    const call = hold.whileWaiting(late.promise);
    await new Promise((resolve) => setTimeout(resolve, 1));
    hold.end();
    late.resolve();
    await call;
    expect(await free()).toBe(true);
    expect(await free()).toBe(true);
  });

  it("goes on after an answer even when every worker is taken, and new work waits until it is repaid", async () => {
    const { workers, hold, free } = await oneWorker();
    const answer = deferred();
    const call = hold.whileWaiting(answer.promise);
    await new Promise((resolve) => setTimeout(resolve, 1));
    await workers.take(); // another key took the worker meanwhile
    answer.resolve();
    await call; // not stuck waiting for a worker
    workers.give(); // the other key is done: repays the place taken over the count
    expect(await free()).toBe(false);
    hold.end();
    expect(await free()).toBe(true);
  });
});
