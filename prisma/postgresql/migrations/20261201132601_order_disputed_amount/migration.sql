-- AlterTable
ALTER TABLE "Order" ADD COLUMN     "disputedAmount" INTEGER NOT NULL DEFAULT 0;

