-- CreateTable
CREATE TABLE "Replay" (
    "id" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdBy" TEXT NOT NULL,
    "filter" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "eventCount" INTEGER NOT NULL,
    "orderCount" INTEGER NOT NULL,
    "preview" TEXT NOT NULL,
    "appliedAt" TIMESTAMP(3),
    "appliedBy" TEXT,
    "result" TEXT,

    CONSTRAINT "Replay_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ReplayEvent" (
    "replayId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "webhookEventId" TEXT,
    "deadLetterId" TEXT,
    "provider" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "livemode" BOOLEAN NOT NULL,
    "eventId" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "bodyHash" TEXT NOT NULL,

    CONSTRAINT "ReplayEvent_pkey" PRIMARY KEY ("replayId","position")
);

-- CreateTable
CREATE TABLE "BooksCheck" (
    "id" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "ordersChecked" INTEGER NOT NULL DEFAULT 0,
    "ordersAgreeing" INTEGER NOT NULL DEFAULT 0,
    "ordersDiffering" INTEGER NOT NULL DEFAULT 0,
    "ordersWaiting" INTEGER NOT NULL DEFAULT 0,
    "ordersUnverifiable" INTEGER NOT NULL DEFAULT 0,
    "report" TEXT NOT NULL DEFAULT '{}',
    "error" TEXT,

    CONSTRAINT "BooksCheck_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Replay_createdAt_idx" ON "Replay"("createdAt");

-- CreateIndex
CREATE INDEX "BooksCheck_startedAt_idx" ON "BooksCheck"("startedAt");

-- AddForeignKey
ALTER TABLE "ReplayEvent" ADD CONSTRAINT "ReplayEvent_replayId_fkey" FOREIGN KEY ("replayId") REFERENCES "Replay"("id") ON DELETE CASCADE ON UPDATE CASCADE;

