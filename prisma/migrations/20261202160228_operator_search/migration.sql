-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN "chargeId" TEXT;
ALTER TABLE "WebhookEvent" ADD COLUMN "customerEmail" TEXT;
ALTER TABLE "WebhookEvent" ADD COLUMN "headerNames" TEXT;

-- CreateIndex
CREATE INDEX "WebhookEvent_eventId_idx" ON "WebhookEvent"("eventId");

-- CreateIndex
CREATE INDEX "WebhookEvent_chargeId_idx" ON "WebhookEvent"("chargeId");

-- CreateIndex
CREATE INDEX "WebhookEvent_customerEmail_idx" ON "WebhookEvent"("customerEmail");

