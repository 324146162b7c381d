-- CreateTable
CREATE TABLE "GapCheck" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "endpoint" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "startedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME,
    "since" DATETIME NOT NULL,
    "listed" INTEGER NOT NULL DEFAULT 0,
    "alreadyStored" INTEGER NOT NULL DEFAULT 0,
    "stored" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT
);

-- CreateIndex
CREATE INDEX "GapCheck_trigger_endpoint_startedAt_idx" ON "GapCheck"("trigger", "endpoint", "startedAt");

-- CreateIndex
CREATE INDEX "GapCheck_trigger_startedAt_idx" ON "GapCheck"("trigger", "startedAt");

