// Preloaded (`node --require`) by the Prisma CLI on PostgreSQL only: the schema engine leaves timers of
// 10-60 s pending after its work is done, which keeps `migrate deploy` alive 10 s and `migrate dev` 60 s
// (../shared/STACK.md). Timers of 2 s or more no longer hold the process open; shorter ones are untouched.
const LONG_MS = 2000;
for (const name of ["setTimeout", "setInterval"]) {
  const original = globalThis[name];
  globalThis[name] = function (callback, delay, ...args) {
    const timer = original.call(this, callback, delay, ...args);
    if (typeof delay === "number" && delay >= LONG_MS && timer && typeof timer.unref === "function") timer.unref();
    return timer;
  };
}
