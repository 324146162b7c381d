-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN     "firstFailedAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "WebhookEvent_status_leaseExpiresAt_idx" ON "WebhookEvent"("status", "leaseExpiresAt");

-- CreateIndex
CREATE INDEX "WebhookEvent_paymentKey_idx" ON "WebhookEvent"("paymentKey");

