-- AlterTable
ALTER TABLE "DeadLetter" ADD COLUMN     "purgedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "WebhookEvent" ADD COLUMN     "purgedAt" TIMESTAMP(3);
