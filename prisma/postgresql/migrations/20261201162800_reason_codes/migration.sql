-- AlterTable
ALTER TABLE "DeadLetter" ADD COLUMN     "reasonCode" TEXT,
ADD COLUMN     "reasonParams" TEXT,
ADD COLUMN     "resolutionCode" TEXT,
ADD COLUMN     "resolutionParams" TEXT;

-- AlterTable
ALTER TABLE "Decision" ADD COLUMN     "reasonCode" TEXT,
ADD COLUMN     "reasonParams" TEXT;

-- AlterTable
ALTER TABLE "ReconciliationMismatch" ADD COLUMN     "reasonCode" TEXT,
ADD COLUMN     "reasonParams" TEXT;

