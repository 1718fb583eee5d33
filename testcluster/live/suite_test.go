package live

import "testing"

// TestLive runs the live checks in an order that keeps each independent of the others' leftovers:
// each works in namespaces of its own; the apiserver's latency figures read what every earlier check
// sent, and the faults (which stop the webhook and restart the apiserver, resetting its metrics) come last:
// QuotaReservations restarts the apiserver mid-burst too.
func TestLive(t *testing.T) {
	t.Run("InstallOrder", testInstallOrder)
	t.Run("FirstInstallPaths", testFirstInstallPaths)
	t.Run("DeveloperReadsTheDenial", testDeveloperReadsTheDenial)
	t.Run("WarnModeWarnings", testWarnModeWarnings)
	t.Run("CLIIsTheApiserversTwin", testCLIIsTheApiserversTwin)
	t.Run("PodsFromControllers", testPodsFromControllers)
	t.Run("Priority", testPriority)
	t.Run("AgreementWithTheScheduler", testAgreementWithTheScheduler)
	t.Run("LiveQuota", testLiveQuota)
	t.Run("ReplicasAgainstOneQuota", testReplicasAgainstOneQuota)
	t.Run("QueueObserved", testQueueObserved)
	t.Run("ManifestsTheApiserverAccepts", testManifestsTheApiserverAccepts)
	t.Run("OptOutGuard", testOptOutGuard)
	t.Run("MatchConditions", testMatchConditions)
	t.Run("TemplateMutation", testTemplateMutation)
	t.Run("DRA", testDRA)
	t.Run("NativeBackstop", testNativeBackstop)
	t.Run("ApiserverLatency", testApiserverLatency)
	t.Run("QuotaReservations", testQuotaReservations)
	t.Run("Faults", testFaults)
}
