-- Stored events move to their endpoint's live/test scope (the payload's claim used to decide it): a
-- live event id stored first through a test endpoint stops blocking the real live event. A row whose
-- target key is already taken (both scopes stored under one endpoint) keeps its scope.
UPDATE "WebhookEvent" SET "livemode" = (CASE WHEN "endpoint" IN ('stripe-test', 'yolfi-test') THEN false ELSE true END)
WHERE "livemode" <> (CASE WHEN "endpoint" IN ('stripe-test', 'yolfi-test') THEN false ELSE true END)
  AND NOT EXISTS (SELECT 1 FROM "WebhookEvent" other WHERE other."provider" = "WebhookEvent"."provider" AND other."account" = "WebhookEvent"."account" AND other."eventId" = "WebhookEvent"."eventId" AND other."id" <> "WebhookEvent"."id");

-- DropIndex
DROP INDEX "ExtraCharge_paymentKey_key";

-- DropIndex
DROP INDEX "LedgerEntry_paymentKey_idx";

-- AlterTable: existing rows take the scope of the event that recorded them (the endpoint's account and
-- live/test), else their order's, then the columns become required.
ALTER TABLE "ExtraCharge" ADD COLUMN     "account" TEXT,
ADD COLUMN     "livemode" BOOLEAN;
UPDATE "ExtraCharge" x SET "account" = COALESCE((SELECT e."account" FROM "WebhookEvent" e WHERE e."provider" = x."provider" AND e."eventId" = x."eventId" ORDER BY (e."livemode" = (SELECT o2."livemode" FROM "Order" o2 WHERE o2."id" = x."orderId")) DESC, (e."status" = 'processed') DESC LIMIT 1), (SELECT o."account" FROM "Order" o WHERE o."id" = x."orderId")),
    "livemode" = COALESCE((SELECT e."livemode" FROM "WebhookEvent" e WHERE e."provider" = x."provider" AND e."eventId" = x."eventId" ORDER BY (e."livemode" = (SELECT o2."livemode" FROM "Order" o2 WHERE o2."id" = x."orderId")) DESC, (e."status" = 'processed') DESC LIMIT 1), (SELECT o."livemode" FROM "Order" o WHERE o."id" = x."orderId"));
ALTER TABLE "ExtraCharge" ALTER COLUMN "account" SET NOT NULL, ALTER COLUMN "livemode" SET NOT NULL;

-- AlterTable: the same for ledger entries, whose business keys `<kind>:<payment>[:<total>]` become
-- `<kind>:<provider>:<account>:<live|test>:<payment>[:<total>]`.
ALTER TABLE "LedgerEntry" ADD COLUMN     "account" TEXT,
ADD COLUMN     "livemode" BOOLEAN;
UPDATE "LedgerEntry" l SET "account" = COALESCE((SELECT e."account" FROM "WebhookEvent" e WHERE e."provider" = l."provider" AND e."eventId" = l."eventId" ORDER BY (e."livemode" = (SELECT o2."livemode" FROM "Order" o2 WHERE o2."id" = l."orderId")) DESC, (e."status" = 'processed') DESC LIMIT 1), (SELECT o."account" FROM "Order" o WHERE o."id" = l."orderId")),
    "livemode" = COALESCE((SELECT e."livemode" FROM "WebhookEvent" e WHERE e."provider" = l."provider" AND e."eventId" = l."eventId" ORDER BY (e."livemode" = (SELECT o2."livemode" FROM "Order" o2 WHERE o2."id" = l."orderId")) DESC, (e."status" = 'processed') DESC LIMIT 1), (SELECT o."livemode" FROM "Order" o WHERE o."id" = l."orderId"));
UPDATE "LedgerEntry" SET "businessKey" = "kind" || ':' || "provider" || ':' || "account" || ':' || (CASE WHEN "livemode" THEN 'live' ELSE 'test' END) || ':' || substr("businessKey", length("kind") + 2)
WHERE substr("businessKey", 1, length("kind") + 1) = "kind" || ':';
ALTER TABLE "LedgerEntry" ALTER COLUMN "account" SET NOT NULL, ALTER COLUMN "livemode" SET NOT NULL;

-- CreateIndex
CREATE UNIQUE INDEX "ExtraCharge_provider_account_livemode_paymentKey_key" ON "ExtraCharge"("provider", "account", "livemode", "paymentKey");

-- CreateIndex
CREATE INDEX "LedgerEntry_provider_account_livemode_paymentKey_idx" ON "LedgerEntry"("provider", "account", "livemode", "paymentKey");

