-- CreateTable
CREATE TABLE "SettlementPull" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "endpoint" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "scheduleKey" TEXT,
    "status" TEXT NOT NULL,
    "reportRunId" TEXT,
    "runId" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" DATETIME,
    "error" TEXT,
    "startedAt" DATETIME NOT NULL,
    "requestedAt" DATETIME,
    "finishedAt" DATETIME
);

-- AlterTable: a column with a constant default is added in place (no copy of the runs)
ALTER TABLE "ReconciliationRun" ADD COLUMN "origin" TEXT NOT NULL DEFAULT 'upload';

-- Runs npm run reconcile started before this column are named by their actor cli:<os user>
UPDATE "ReconciliationRun" SET "origin" = 'cli' WHERE "actor" LIKE 'cli:%';

-- CreateIndex
CREATE UNIQUE INDEX "SettlementPull_scheduleKey_key" ON "SettlementPull"("scheduleKey");

-- CreateIndex
CREATE INDEX "SettlementPull_status_nextAttemptAt_idx" ON "SettlementPull"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "SettlementPull_endpoint_startedAt_idx" ON "SettlementPull"("endpoint", "startedAt");

