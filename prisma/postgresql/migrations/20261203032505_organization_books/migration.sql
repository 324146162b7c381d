-- DropForeignKey
ALTER TABLE "Delivery" DROP CONSTRAINT "Delivery_orderId_fkey";

-- DropForeignKey
ALTER TABLE "Dispute" DROP CONSTRAINT "Dispute_orderId_fkey";

-- DropForeignKey
ALTER TABLE "ExtraCharge" DROP CONSTRAINT "ExtraCharge_orderId_fkey";

-- DropForeignKey
ALTER TABLE "LedgerEntry" DROP CONSTRAINT "LedgerEntry_orderId_fkey";

-- DropIndex
DROP INDEX "DeadLetter_orderId_idx";

-- DropIndex
DROP INDEX "Decision_orderId_at_idx";

-- DropIndex
DROP INDEX "Delivery_orderId_key";

-- DropIndex
DROP INDEX "Dispute_orderId_idx";

-- DropIndex
DROP INDEX "ExtraCharge_orderId_idx";

-- DropIndex
DROP INDEX "LedgerEntry_orderId_idx";

-- DropIndex
DROP INDEX "Order_checkoutSessionId_key";

-- DropIndex
DROP INDEX "Order_createdAt_idx";

-- DropIndex
DROP INDEX "Order_currency_amount_id_idx";

-- DropIndex
DROP INDEX "Order_currency_updatedAt_id_idx";

-- DropIndex
DROP INDEX "Order_lastEventAt_id_idx";

-- DropIndex
DROP INDEX "Order_status_currency_updatedAt_id_idx";

-- DropIndex
DROP INDEX "Order_status_updatedAt_id_idx";

-- DropIndex
DROP INDEX "Order_updatedAt_id_idx";

-- DropIndex
DROP INDEX "OutboxMessage_orderId_idx";

-- DropIndex
DROP INDEX "WebhookEvent_orderId_idx";

-- AlterTable
ALTER TABLE "AuditEntry" ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default';

-- AlterTable
ALTER TABLE "BooksCheck" ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default';

-- AlterTable
ALTER TABLE "DeadLetter" ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default';

-- AlterTable
ALTER TABLE "Decision" ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default';

-- AlterTable
ALTER TABLE "Delivery" ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default';

-- AlterTable
ALTER TABLE "Dispute" ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default';

-- AlterTable
ALTER TABLE "ExtraCharge" ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default';

-- AlterTable
ALTER TABLE "GapCheck" ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default';

-- AlterTable
ALTER TABLE "LedgerEntry" ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default';

-- AlterTable
ALTER TABLE "Order" DROP CONSTRAINT "Order_pkey",
ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default',
ADD CONSTRAINT "Order_pkey" PRIMARY KEY ("organizationId", "id");

-- AlterTable
ALTER TABLE "OutboxMessage" ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default';

-- AlterTable
ALTER TABLE "ReconciliationRun" ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default';

-- AlterTable
ALTER TABLE "Replay" ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default';

-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default';

-- CreateIndex
CREATE INDEX "DeadLetter_organizationId_orderId_idx" ON "DeadLetter"("organizationId", "orderId");

-- CreateIndex
CREATE INDEX "Decision_organizationId_orderId_at_idx" ON "Decision"("organizationId", "orderId", "at");

-- CreateIndex
CREATE UNIQUE INDEX "Delivery_organizationId_orderId_key" ON "Delivery"("organizationId", "orderId");

-- CreateIndex
CREATE INDEX "Dispute_organizationId_orderId_idx" ON "Dispute"("organizationId", "orderId");

-- CreateIndex
CREATE INDEX "ExtraCharge_organizationId_orderId_idx" ON "ExtraCharge"("organizationId", "orderId");

-- CreateIndex
CREATE INDEX "LedgerEntry_organizationId_orderId_idx" ON "LedgerEntry"("organizationId", "orderId");

-- CreateIndex
CREATE INDEX "Order_organizationId_status_currency_updatedAt_id_idx" ON "Order"("organizationId", "status", "currency", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Order_organizationId_status_updatedAt_id_idx" ON "Order"("organizationId", "status", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Order_organizationId_currency_updatedAt_id_idx" ON "Order"("organizationId", "currency", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Order_organizationId_updatedAt_id_idx" ON "Order"("organizationId", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Order_organizationId_createdAt_idx" ON "Order"("organizationId", "createdAt");

-- CreateIndex
CREATE INDEX "Order_organizationId_currency_amount_id_idx" ON "Order"("organizationId", "currency", "amount", "id");

-- CreateIndex
CREATE INDEX "Order_organizationId_lastEventAt_id_idx" ON "Order"("organizationId", "lastEventAt", "id");

-- CreateIndex
CREATE UNIQUE INDEX "Order_organizationId_checkoutSessionId_key" ON "Order"("organizationId", "checkoutSessionId");

-- CreateIndex
CREATE INDEX "OutboxMessage_organizationId_orderId_idx" ON "OutboxMessage"("organizationId", "orderId");

-- CreateIndex
CREATE INDEX "WebhookEvent_organizationId_orderId_idx" ON "WebhookEvent"("organizationId", "orderId");

-- AddForeignKey
ALTER TABLE "LedgerEntry" ADD CONSTRAINT "LedgerEntry_organizationId_orderId_fkey" FOREIGN KEY ("organizationId", "orderId") REFERENCES "Order"("organizationId", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Dispute" ADD CONSTRAINT "Dispute_organizationId_orderId_fkey" FOREIGN KEY ("organizationId", "orderId") REFERENCES "Order"("organizationId", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Delivery" ADD CONSTRAINT "Delivery_organizationId_orderId_fkey" FOREIGN KEY ("organizationId", "orderId") REFERENCES "Order"("organizationId", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ExtraCharge" ADD CONSTRAINT "ExtraCharge_organizationId_orderId_fkey" FOREIGN KEY ("organizationId", "orderId") REFERENCES "Order"("organizationId", "id") ON DELETE RESTRICT ON UPDATE CASCADE;

