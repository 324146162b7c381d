-- AlterTable
ALTER TABLE "LedgerEntry" ADD COLUMN "occurredAt" DATETIME;

-- CreateTable
CREATE TABLE "RefundSnapshot" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "provider" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "paymentKey" TEXT NOT NULL,
    "total" INTEGER NOT NULL,
    "at" DATETIME,
    "eventId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "RefundObject" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "provider" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "paymentKey" TEXT NOT NULL,
    "refundId" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "createdAt" DATETIME,
    "eventId" TEXT NOT NULL,
    "recordedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Dispute" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "provider" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "paymentKey" TEXT NOT NULL,
    "disputeId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "amount" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" DATETIME NOT NULL,
    CONSTRAINT "Dispute_orderId_fkey" FOREIGN KEY ("orderId") REFERENCES "Order" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "RefundSnapshot_provider_account_livemode_paymentKey_idx" ON "RefundSnapshot"("provider", "account", "livemode", "paymentKey");

-- CreateIndex
CREATE UNIQUE INDEX "RefundSnapshot_provider_account_livemode_paymentKey_total_at_key" ON "RefundSnapshot"("provider", "account", "livemode", "paymentKey", "total", "at");

-- CreateIndex
CREATE INDEX "RefundObject_provider_account_livemode_paymentKey_idx" ON "RefundObject"("provider", "account", "livemode", "paymentKey");

-- CreateIndex
CREATE UNIQUE INDEX "RefundObject_provider_account_livemode_refundId_key" ON "RefundObject"("provider", "account", "livemode", "refundId");

-- CreateIndex
CREATE INDEX "Dispute_orderId_idx" ON "Dispute"("orderId");

-- CreateIndex
CREATE UNIQUE INDEX "Dispute_provider_account_livemode_disputeId_key" ON "Dispute"("provider", "account", "livemode", "disputeId");

