-- CreateTable
CREATE TABLE "ConnectBinding" (
    "endpointId" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdBy" TEXT NOT NULL,

    PRIMARY KEY ("endpointId", "account"),
    CONSTRAINT "ConnectBinding_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "Endpoint" ("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "ConnectBinding_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization" ("id") ON DELETE RESTRICT ON UPDATE CASCADE
);

-- CreateIndex
CREATE INDEX "ConnectBinding_account_idx" ON "ConnectBinding"("account");

-- CreateIndex
CREATE INDEX "ConnectBinding_organizationId_idx" ON "ConnectBinding"("organizationId");

