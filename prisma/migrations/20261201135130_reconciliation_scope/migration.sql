-- CreateTable
CREATE TABLE "ReconciliationEntry" (
    "runId" TEXT NOT NULL,
    "transactionId" TEXT NOT NULL,
    "line" INTEGER NOT NULL,
    "paymentId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "currency" TEXT NOT NULL,
    "gross" INTEGER NOT NULL,
    "orderId" TEXT,

    PRIMARY KEY ("runId", "transactionId"),
    CONSTRAINT "ReconciliationEntry_runId_fkey" FOREIGN KEY ("runId") REFERENCES "ReconciliationRun" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ReconciliationMismatch" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "runId" TEXT NOT NULL,
    "code" TEXT NOT NULL DEFAULT '',
    "paymentId" TEXT NOT NULL DEFAULT '',
    "orderId" TEXT NOT NULL DEFAULT '',
    "currency" TEXT NOT NULL,
    "settled" INTEGER NOT NULL DEFAULT 0,
    "booked" INTEGER NOT NULL DEFAULT 0,
    "nextAction" TEXT NOT NULL DEFAULT '',
    "line" INTEGER,
    "lines" TEXT NOT NULL DEFAULT '[]',
    "providerStatus" TEXT NOT NULL DEFAULT '',
    "expectedStatus" TEXT NOT NULL DEFAULT '',
    "foundStatus" TEXT NOT NULL DEFAULT '',
    "expectedCredited" INTEGER NOT NULL DEFAULT 0,
    "foundCredited" INTEGER NOT NULL DEFAULT 0,
    "overcredited" INTEGER NOT NULL DEFAULT 0,
    "reason" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "ReconciliationMismatch_runId_fkey" FOREIGN KEY ("runId") REFERENCES "ReconciliationRun" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_ReconciliationMismatch" ("currency", "expectedCredited", "expectedStatus", "foundCredited", "foundStatus", "id", "orderId", "overcredited", "providerStatus", "reason", "runId") SELECT "currency", "expectedCredited", "expectedStatus", "foundCredited", "foundStatus", "id", "orderId", "overcredited", "providerStatus", "reason", "runId" FROM "ReconciliationMismatch";
DROP TABLE "ReconciliationMismatch";
ALTER TABLE "new_ReconciliationMismatch" RENAME TO "ReconciliationMismatch";
CREATE INDEX "ReconciliationMismatch_runId_code_idx" ON "ReconciliationMismatch"("runId", "code");
CREATE INDEX "ReconciliationMismatch_runId_orderId_idx" ON "ReconciliationMismatch"("runId", "orderId");
CREATE INDEX "ReconciliationMismatch_orderId_idx" ON "ReconciliationMismatch"("orderId");
CREATE TABLE "new_ReconciliationRun" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "source" TEXT NOT NULL,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" DATETIME,
    "format" TEXT NOT NULL DEFAULT 'lab',
    "provider" TEXT NOT NULL DEFAULT 'lab',
    "account" TEXT NOT NULL DEFAULT 'lab',
    "livemode" BOOLEAN NOT NULL DEFAULT true,
    "scopeKey" TEXT NOT NULL DEFAULT 'lab:lab:live',
    "periodFrom" DATETIME,
    "periodTo" DATETIME,
    "periodGiven" BOOLEAN NOT NULL DEFAULT false,
    "status" TEXT NOT NULL DEFAULT 'done',
    "actor" TEXT NOT NULL DEFAULT '',
    "filePath" TEXT,
    "bytesTotal" INTEGER NOT NULL DEFAULT 0,
    "bytesDone" INTEGER NOT NULL DEFAULT 0,
    "rowCount" INTEGER NOT NULL DEFAULT 0,
    "orderCount" INTEGER NOT NULL DEFAULT 0,
    "mismatchCount" INTEGER NOT NULL DEFAULT 0,
    "overcredited" TEXT NOT NULL DEFAULT '{}',
    "totals" TEXT NOT NULL DEFAULT '{}',
    "payouts" TEXT NOT NULL DEFAULT '{}',
    "error" TEXT,
    "activeScope" TEXT,
    "claimedBy" TEXT,
    "leaseUntil" DATETIME,
    "attempts" INTEGER NOT NULL DEFAULT 0
);
INSERT INTO "new_ReconciliationRun" ("finishedAt", "id", "mismatchCount", "orderCount", "overcredited", "rowCount", "source", "startedAt") SELECT "finishedAt", "id", "mismatchCount", "orderCount", "overcredited", "rowCount", "source", "startedAt" FROM "ReconciliationRun";
DROP TABLE "ReconciliationRun";
ALTER TABLE "new_ReconciliationRun" RENAME TO "ReconciliationRun";
CREATE UNIQUE INDEX "ReconciliationRun_activeScope_key" ON "ReconciliationRun"("activeScope");
CREATE INDEX "ReconciliationRun_startedAt_idx" ON "ReconciliationRun"("startedAt");
CREATE INDEX "ReconciliationRun_status_scopeKey_idx" ON "ReconciliationRun"("status", "scopeKey");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

-- CreateIndex
CREATE INDEX "ReconciliationEntry_runId_paymentId_idx" ON "ReconciliationEntry"("runId", "paymentId");

