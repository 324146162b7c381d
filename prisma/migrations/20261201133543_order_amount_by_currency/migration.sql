-- DropIndex
DROP INDEX "Order_amount_id_idx";

-- CreateIndex
CREATE INDEX "Order_currency_amount_id_idx" ON "Order"("currency", "amount", "id");

