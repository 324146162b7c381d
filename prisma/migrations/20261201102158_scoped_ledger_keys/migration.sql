-- Stored events move to their endpoint's live/test scope (the payload's claim used to decide it): a
-- live event id stored first through a test endpoint stops blocking the real live event. A row whose
-- target key is already taken (both scopes stored under one endpoint) keeps its scope.
UPDATE "WebhookEvent" SET "livemode" = (CASE WHEN "endpoint" IN ('stripe-test', 'yolfi-test') THEN 0 ELSE 1 END)
WHERE "livemode" <> (CASE WHEN "endpoint" IN ('stripe-test', 'yolfi-test') THEN 0 ELSE 1 END)
  AND NOT EXISTS (SELECT 1 FROM "WebhookEvent" other WHERE other."provider" = "WebhookEvent"."provider" AND other."account" = "WebhookEvent"."account" AND other."eventId" = "WebhookEvent"."eventId" AND other."id" <> "WebhookEvent"."id");

-- RedefineTables
PRAGMA defer_foreign_keys=ON;
PRAGMA foreign_keys=OFF;
CREATE TABLE "new_ExtraCharge" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "orderId" TEXT NOT NULL,
    "paymentKey" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "eventId" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'open',
    "note" TEXT,
    "resolvedBy" TEXT,
    "resolvedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ExtraCharge_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
-- Existing rows take the scope of the event that recorded them (the endpoint's account and live/test),
-- else their order's.
INSERT INTO "new_ExtraCharge" ("amount", "createdAt", "currency", "eventId", "id", "note", "orderId", "paymentKey", "provider", "resolvedAt", "resolvedBy", "status", "account", "livemode") SELECT x."amount", x."createdAt", x."currency", x."eventId", x."id", x."note", x."orderId", x."paymentKey", x."provider", x."resolvedAt", x."resolvedBy", x."status", COALESCE((SELECT e."account" FROM "WebhookEvent" e WHERE e."provider" = x."provider" AND e."eventId" = x."eventId" ORDER BY (e."livemode" = (SELECT o2."livemode" FROM "Order" o2 WHERE o2."id" = x."orderId")) DESC, (e."status" = 'processed') DESC LIMIT 1), (SELECT o."account" FROM "Order" o WHERE o."id" = x."orderId")), COALESCE((SELECT e."livemode" FROM "WebhookEvent" e WHERE e."provider" = x."provider" AND e."eventId" = x."eventId" ORDER BY (e."livemode" = (SELECT o2."livemode" FROM "Order" o2 WHERE o2."id" = x."orderId")) DESC, (e."status" = 'processed') DESC LIMIT 1), (SELECT o."livemode" FROM "Order" o WHERE o."id" = x."orderId")) FROM "ExtraCharge" x;
DROP TABLE "ExtraCharge";
ALTER TABLE "new_ExtraCharge" RENAME TO "ExtraCharge";
CREATE INDEX "ExtraCharge_status_createdAt_idx" ON "ExtraCharge"("status", "createdAt");
CREATE INDEX "ExtraCharge_orderId_idx" ON "ExtraCharge"("orderId");
CREATE UNIQUE INDEX "ExtraCharge_provider_account_livemode_paymentKey_key" ON "ExtraCharge"("provider", "account", "livemode", "paymentKey");
CREATE TABLE "new_LedgerEntry" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "businessKey" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "paymentKey" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "eventId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "LedgerEntry_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
-- Existing entries take the scope of the event that booked them, else their order's, their business
-- keys `<kind>:<payment>[:<total>]` become `<kind>:<provider>:<account>:<live|test>:<payment>[:<total>]`.
INSERT INTO "new_LedgerEntry" ("amount", "businessKey", "createdAt", "currency", "eventId", "id", "kind", "orderId", "paymentKey", "provider", "account", "livemode") SELECT l."amount", l."businessKey", l."createdAt", l."currency", l."eventId", l."id", l."kind", l."orderId", l."paymentKey", l."provider", COALESCE((SELECT e."account" FROM "WebhookEvent" e WHERE e."provider" = l."provider" AND e."eventId" = l."eventId" ORDER BY (e."livemode" = (SELECT o2."livemode" FROM "Order" o2 WHERE o2."id" = l."orderId")) DESC, (e."status" = 'processed') DESC LIMIT 1), (SELECT o."account" FROM "Order" o WHERE o."id" = l."orderId")), COALESCE((SELECT e."livemode" FROM "WebhookEvent" e WHERE e."provider" = l."provider" AND e."eventId" = l."eventId" ORDER BY (e."livemode" = (SELECT o2."livemode" FROM "Order" o2 WHERE o2."id" = l."orderId")) DESC, (e."status" = 'processed') DESC LIMIT 1), (SELECT o."livemode" FROM "Order" o WHERE o."id" = l."orderId")) FROM "LedgerEntry" l;
UPDATE "new_LedgerEntry" SET "businessKey" = "kind" || ':' || "provider" || ':' || "account" || ':' || (CASE WHEN "livemode" THEN 'live' ELSE 'test' END) || ':' || substr("businessKey", length("kind") + 2)
WHERE substr("businessKey", 1, length("kind") + 1) = "kind" || ':';
DROP TABLE "LedgerEntry";
ALTER TABLE "new_LedgerEntry" RENAME TO "LedgerEntry";
CREATE UNIQUE INDEX "LedgerEntry_businessKey_key" ON "LedgerEntry"("businessKey");
CREATE INDEX "LedgerEntry_orderId_idx" ON "LedgerEntry"("orderId");
CREATE INDEX "LedgerEntry_provider_account_livemode_paymentKey_idx" ON "LedgerEntry"("provider", "account", "livemode", "paymentKey");
PRAGMA foreign_keys=ON;
PRAGMA defer_foreign_keys=OFF;

