-- AlterTable
ALTER TABLE "AuditEntry" ADD COLUMN "noteCode" TEXT;
ALTER TABLE "AuditEntry" ADD COLUMN "noteParams" TEXT;

-- AlterTable
ALTER TABLE "Decision" ADD COLUMN "diagnosisCode" TEXT;
ALTER TABLE "Decision" ADD COLUMN "diagnosisParams" TEXT;

