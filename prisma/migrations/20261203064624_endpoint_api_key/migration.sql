-- AlterTable
ALTER TABLE "Endpoint" ADD COLUMN "apiKeyCiphertext" TEXT;
ALTER TABLE "Endpoint" ADD COLUMN "apiKeySetAt" DATETIME;

-- CreateIndex
CREATE INDEX "GapCheck_status_startedAt_idx" ON "GapCheck"("status", "startedAt");

