-- CreateTable
CREATE TABLE "GapCheck" (
    "id" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),
    "since" TIMESTAMP(3) NOT NULL,
    "listed" INTEGER NOT NULL DEFAULT 0,
    "alreadyStored" INTEGER NOT NULL DEFAULT 0,
    "stored" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,

    CONSTRAINT "GapCheck_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "GapCheck_trigger_endpoint_startedAt_idx" ON "GapCheck"("trigger", "endpoint", "startedAt");

-- CreateIndex
CREATE INDEX "GapCheck_trigger_startedAt_idx" ON "GapCheck"("trigger", "startedAt");

