-- CreateTable
CREATE TABLE "Replay" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdBy" TEXT NOT NULL,
    "filter" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "eventCount" INTEGER NOT NULL,
    "orderCount" INTEGER NOT NULL,
    "preview" TEXT NOT NULL,
    "appliedAt" DATETIME,
    "appliedBy" TEXT,
    "result" TEXT
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

    PRIMARY KEY ("replayId", "position"),
    CONSTRAINT "ReplayEvent_replayId_fkey" FOREIGN KEY ("replayId") REFERENCES "Replay" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- CreateTable
CREATE TABLE "BooksCheck" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "startedAt" DATETIME NOT NULL,
    "finishedAt" DATETIME,
    "trigger" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "ordersChecked" INTEGER NOT NULL DEFAULT 0,
    "ordersAgreeing" INTEGER NOT NULL DEFAULT 0,
    "ordersDiffering" INTEGER NOT NULL DEFAULT 0,
    "ordersWaiting" INTEGER NOT NULL DEFAULT 0,
    "ordersUnverifiable" INTEGER NOT NULL DEFAULT 0,
    "report" TEXT NOT NULL DEFAULT '{}',
    "error" TEXT
);

-- CreateIndex
CREATE INDEX "Replay_createdAt_idx" ON "Replay"("createdAt");

-- CreateIndex
CREATE INDEX "BooksCheck_startedAt_idx" ON "BooksCheck"("startedAt");

