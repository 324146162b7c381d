-- AlterTable
ALTER TABLE "DeadLetter" ADD COLUMN "reasonCode" TEXT;
ALTER TABLE "DeadLetter" ADD COLUMN "reasonParams" TEXT;
ALTER TABLE "DeadLetter" ADD COLUMN "resolutionCode" TEXT;
ALTER TABLE "DeadLetter" ADD COLUMN "resolutionParams" TEXT;

-- AlterTable
ALTER TABLE "Decision" ADD COLUMN "reasonCode" TEXT;
ALTER TABLE "Decision" ADD COLUMN "reasonParams" TEXT;

-- AlterTable
ALTER TABLE "ReconciliationMismatch" ADD COLUMN "reasonCode" TEXT;
ALTER TABLE "ReconciliationMismatch" ADD COLUMN "reasonParams" TEXT;

