-- DropIndex
DROP INDEX "ReconciliationMismatch_runId_idx";

-- AlterTable
ALTER TABLE "ReconciliationMismatch" ADD COLUMN     "booked" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "code" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "line" INTEGER,
ADD COLUMN     "lines" TEXT NOT NULL DEFAULT '[]',
ADD COLUMN     "nextAction" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "paymentId" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "settled" INTEGER NOT NULL DEFAULT 0,
ALTER COLUMN "orderId" SET DEFAULT '',
ALTER COLUMN "providerStatus" SET DEFAULT '',
ALTER COLUMN "expectedStatus" SET DEFAULT '',
ALTER COLUMN "foundStatus" SET DEFAULT '',
ALTER COLUMN "expectedCredited" SET DEFAULT 0,
ALTER COLUMN "foundCredited" SET DEFAULT 0,
ALTER COLUMN "overcredited" SET DEFAULT 0,
ALTER COLUMN "reason" SET DEFAULT '';

-- AlterTable
ALTER TABLE "ReconciliationRun" ADD COLUMN     "account" TEXT NOT NULL DEFAULT 'lab',
ADD COLUMN     "activeScope" TEXT,
ADD COLUMN     "actor" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "bytesDone" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "bytesTotal" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "claimedBy" TEXT,
ADD COLUMN     "error" TEXT,
ADD COLUMN     "filePath" TEXT,
ADD COLUMN     "format" TEXT NOT NULL DEFAULT 'lab',
ADD COLUMN     "leaseUntil" TIMESTAMP(3),
ADD COLUMN     "livemode" BOOLEAN NOT NULL DEFAULT true,
ADD COLUMN     "payouts" TEXT NOT NULL DEFAULT '{}',
ADD COLUMN     "periodFrom" TIMESTAMP(3),
ADD COLUMN     "periodGiven" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN     "periodTo" TIMESTAMP(3),
ADD COLUMN     "provider" TEXT NOT NULL DEFAULT 'lab',
ADD COLUMN     "scopeKey" TEXT NOT NULL DEFAULT 'lab:lab:live',
ADD COLUMN     "status" TEXT NOT NULL DEFAULT 'done',
ADD COLUMN     "totals" TEXT NOT NULL DEFAULT '{}';

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

    CONSTRAINT "ReconciliationEntry_pkey" PRIMARY KEY ("runId","transactionId")
);

-- CreateIndex
CREATE INDEX "ReconciliationEntry_runId_paymentId_idx" ON "ReconciliationEntry"("runId", "paymentId");

-- CreateIndex
CREATE INDEX "ReconciliationMismatch_runId_code_idx" ON "ReconciliationMismatch"("runId", "code");

-- CreateIndex
CREATE INDEX "ReconciliationMismatch_runId_orderId_idx" ON "ReconciliationMismatch"("runId", "orderId");

-- CreateIndex
CREATE UNIQUE INDEX "ReconciliationRun_activeScope_key" ON "ReconciliationRun"("activeScope");

-- CreateIndex
CREATE INDEX "ReconciliationRun_status_scopeKey_idx" ON "ReconciliationRun"("status", "scopeKey");

-- AddForeignKey
ALTER TABLE "ReconciliationEntry" ADD CONSTRAINT "ReconciliationEntry_runId_fkey" FOREIGN KEY ("runId") REFERENCES "ReconciliationRun"("id") ON DELETE CASCADE ON UPDATE CASCADE;

