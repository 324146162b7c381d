-- CreateTable
CREATE TABLE "ConnectBinding" (
    "endpointId" TEXT NOT NULL,
    "account" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "createdBy" TEXT NOT NULL,

    CONSTRAINT "ConnectBinding_pkey" PRIMARY KEY ("endpointId","account")
);

-- CreateIndex
CREATE INDEX "ConnectBinding_account_idx" ON "ConnectBinding"("account");

-- CreateIndex
CREATE INDEX "ConnectBinding_organizationId_idx" ON "ConnectBinding"("organizationId");

-- AddForeignKey
ALTER TABLE "ConnectBinding" ADD CONSTRAINT "ConnectBinding_endpointId_fkey" FOREIGN KEY ("endpointId") REFERENCES "Endpoint"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ConnectBinding" ADD CONSTRAINT "ConnectBinding_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

