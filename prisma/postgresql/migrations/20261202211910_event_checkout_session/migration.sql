-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN     "checkoutSessionId" TEXT;

-- CreateIndex
CREATE INDEX "WebhookEvent_checkoutSessionId_idx" ON "WebhookEvent"("checkoutSessionId");

