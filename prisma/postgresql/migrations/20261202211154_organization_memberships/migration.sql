-- AlterTable: every existing key is owned by the default organization and acts with the role of its owner there
-- (role NULL), as before. The default only fills the existing rows.
ALTER TABLE "ApiKey" ADD COLUMN     "organizationId" TEXT NOT NULL DEFAULT 'org_default',
ADD COLUMN     "role" TEXT,
ALTER COLUMN "userId" DROP NOT NULL;
ALTER TABLE "ApiKey" ALTER COLUMN "organizationId" DROP DEFAULT;

-- CreateTable
CREATE TABLE "Membership" (
    "userId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Membership_pkey" PRIMARY KEY ("userId","organizationId")
);

-- CreateIndex
CREATE INDEX "Membership_organizationId_idx" ON "Membership"("organizationId");

-- CreateIndex
CREATE INDEX "ApiKey_organizationId_createdAt_idx" ON "ApiKey"("organizationId", "createdAt");

-- AddForeignKey
ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Membership" ADD CONSTRAINT "Membership_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "Membership" ADD CONSTRAINT "Membership_organizationId_fkey" FOREIGN KEY ("organizationId") REFERENCES "Organization"("id") ON DELETE RESTRICT ON UPDATE CASCADE;


-- Every existing user becomes a member of the default organization with the role they had (User.role),
-- so nobody gains or loses a right by the upgrade. Times are UTC whatever the time zone of the session.
INSERT INTO "Membership" ("userId", "organizationId", "role", "createdAt") SELECT "id", 'org_default', "role", (now() AT TIME ZONE 'UTC') FROM "User";
