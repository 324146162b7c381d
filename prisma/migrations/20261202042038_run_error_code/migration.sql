-- AlterTable
ALTER TABLE "ReconciliationRun" ADD COLUMN "errorCode" TEXT;
ALTER TABLE "ReconciliationRun" ADD COLUMN "errorParams" TEXT;

