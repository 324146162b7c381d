-- AlterTable
ALTER TABLE "OutboxMessage" ADD COLUMN "channelId" TEXT;

-- CreateTable
CREATE TABLE "AlertChannel" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "to" TEXT,
    "url" TEXT,
    "secretCiphertext" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "disabledAt" DATETIME
);

-- CreateTable
CREATE TABLE "AlertRule" (
    "organizationId" TEXT NOT NULL,
    "rule" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL,
    "threshold" INTEGER NOT NULL,
    "updatedAt" DATETIME NOT NULL,

    PRIMARY KEY ("organizationId", "rule")
);

-- CreateTable
CREATE TABLE "Incident" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "organizationId" TEXT NOT NULL,
    "rule" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "openKey" TEXT,
    "openedAt" DATETIME NOT NULL,
    "resolvedAt" DATETIME,
    "count" INTEGER NOT NULL,
    "lastSeenAt" DATETIME NOT NULL,
    "detail" TEXT NOT NULL
);

-- CreateIndex
CREATE INDEX "AlertChannel_organizationId_createdAt_idx" ON "AlertChannel"("organizationId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "Incident_openKey_key" ON "Incident"("openKey");

-- CreateIndex
CREATE INDEX "Incident_organizationId_status_openedAt_idx" ON "Incident"("organizationId", "status", "openedAt");

-- CreateIndex
CREATE INDEX "Incident_organizationId_rule_status_idx" ON "Incident"("organizationId", "rule", "status");

