-- CreateTable
CREATE TABLE "RejectionCount" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "endpoint" TEXT NOT NULL,
    "provider" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "httpStatus" INTEGER NOT NULL,
    "minute" DATETIME NOT NULL,
    "count" INTEGER NOT NULL,
    "firstAt" DATETIME NOT NULL,
    "lastAt" DATETIME NOT NULL
);

-- CreateIndex
CREATE INDEX "RejectionCount_minute_idx" ON "RejectionCount"("minute");

-- CreateIndex
CREATE UNIQUE INDEX "RejectionCount_endpoint_reason_minute_key" ON "RejectionCount"("endpoint", "reason", "minute");

