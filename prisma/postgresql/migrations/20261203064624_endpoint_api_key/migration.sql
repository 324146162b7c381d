-- AlterTable
ALTER TABLE "Endpoint" ADD COLUMN     "apiKeyCiphertext" TEXT,
ADD COLUMN     "apiKeySetAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "GapCheck_status_startedAt_idx" ON "GapCheck"("status", "startedAt");

