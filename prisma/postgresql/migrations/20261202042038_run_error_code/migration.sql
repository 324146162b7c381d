-- AlterTable
ALTER TABLE "ReconciliationRun" ADD COLUMN     "errorCode" TEXT,
ADD COLUMN     "errorParams" TEXT;

