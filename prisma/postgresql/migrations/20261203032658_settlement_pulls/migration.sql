-- AlterTable
ALTER TABLE "ReconciliationRun" ADD COLUMN     "origin" TEXT NOT NULL DEFAULT 'upload';

-- Runs npm run reconcile started before this column are named by their actor cli:<os user>
UPDATE "ReconciliationRun" SET "origin" = 'cli' WHERE "actor" LIKE 'cli:%';

-- CreateTable
CREATE TABLE "SettlementPull" (
    "id" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "scheduleKey" TEXT,
    "status" TEXT NOT NULL,
    "reportRunId" TEXT,
    "runId" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "nextAttemptAt" TIMESTAMP(3),
    "error" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "requestedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "SettlementPull_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "SettlementPull_scheduleKey_key" ON "SettlementPull"("scheduleKey");

-- CreateIndex
CREATE INDEX "SettlementPull_status_nextAttemptAt_idx" ON "SettlementPull"("status", "nextAttemptAt");

-- CreateIndex
CREATE INDEX "SettlementPull_endpoint_startedAt_idx" ON "SettlementPull"("endpoint", "startedAt");

