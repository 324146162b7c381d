-- DropIndex
DROP INDEX "Order_amount_idx";

-- DropIndex
DROP INDEX "Order_currency_updatedAt_idx";

-- DropIndex
DROP INDEX "Order_lastEventAt_idx";

-- DropIndex
DROP INDEX "Order_status_updatedAt_idx";

-- DropIndex
DROP INDEX "Order_updatedAt_idx";

-- CreateIndex
CREATE INDEX "Order_status_currency_updatedAt_id_idx" ON "Order"("status", "currency", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Order_status_updatedAt_id_idx" ON "Order"("status", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Order_currency_updatedAt_id_idx" ON "Order"("currency", "updatedAt", "id");

-- CreateIndex
CREATE INDEX "Order_updatedAt_id_idx" ON "Order"("updatedAt", "id");

-- CreateIndex
CREATE INDEX "Order_amount_id_idx" ON "Order"("amount", "id");

-- CreateIndex
CREATE INDEX "Order_lastEventAt_id_idx" ON "Order"("lastEventAt", "id");
