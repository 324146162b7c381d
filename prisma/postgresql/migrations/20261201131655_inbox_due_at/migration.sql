-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN     "dueAt" TIMESTAMP(3);

-- Existing rows: due when a worker may claim them (received or failed at nextAttemptAt, processing at
-- its lease expiry), never once processed, ignored or dead
UPDATE "WebhookEvent" SET "dueAt" = CASE
  WHEN "status" IN ('received', 'failed') THEN "nextAttemptAt"
  WHEN "status" = 'processing' THEN "leaseExpiresAt"
  ELSE NULL
END;

-- CreateIndex
CREATE INDEX "WebhookEvent_dueAt_receivedAt_idx" ON "WebhookEvent"("dueAt", "receivedAt");

