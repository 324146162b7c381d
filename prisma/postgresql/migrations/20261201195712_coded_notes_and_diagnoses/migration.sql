-- AlterTable
ALTER TABLE "AuditEntry" ADD COLUMN     "noteCode" TEXT,
ADD COLUMN     "noteParams" TEXT;

-- AlterTable
ALTER TABLE "Decision" ADD COLUMN     "diagnosisCode" TEXT,
ADD COLUMN     "diagnosisParams" TEXT;

