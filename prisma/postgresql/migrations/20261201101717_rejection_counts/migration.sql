-- CreateTable
CREATE TABLE "RejectionCount" (
    "id" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "httpStatus" INTEGER NOT NULL,
    "minute" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL,
    "firstAt" TIMESTAMP(3) NOT NULL,
    "lastAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RejectionCount_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "RejectionCount_minute_idx" ON "RejectionCount"("minute");

-- CreateIndex
CREATE UNIQUE INDEX "RejectionCount_endpoint_reason_minute_key" ON "RejectionCount"("endpoint", "reason", "minute");

