-- Search by any part of an order id (ILIKE '%…%') reads a trigram index: pg_trgm ships with PostgreSQL
-- (contrib) and is a trusted extension (PostgreSQL 13+), so the database's owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN     "chargeId" TEXT,
ADD COLUMN     "customerEmail" TEXT,
ADD COLUMN     "headerNames" TEXT;

-- CreateIndex (fastupdate off: new orders go into the index at once, not into a pending list that every
-- search would read in full until a vacuum merged it)
CREATE INDEX "Order_id_trgm_idx" ON "Order" USING GIN ("id" gin_trgm_ops) WITH (fastupdate = off);

-- CreateIndex
CREATE INDEX "WebhookEvent_eventId_idx" ON "WebhookEvent"("eventId");

-- CreateIndex
CREATE INDEX "WebhookEvent_chargeId_idx" ON "WebhookEvent"("chargeId");

-- CreateIndex
CREATE INDEX "WebhookEvent_customerEmail_idx" ON "WebhookEvent"("customerEmail");

