-- AlterTable
ALTER TABLE "DeadLetter" ADD COLUMN     "secretLabel" TEXT;

