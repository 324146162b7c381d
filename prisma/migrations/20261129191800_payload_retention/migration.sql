-- AlterTable
ALTER TABLE "DeadLetter" ADD COLUMN "purgedAt" DATETIME;

-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN "purgedAt" DATETIME;

